import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Sends requests with AsyncHTTPClient: the default transport on Linux.
///
/// `AsyncHTTPClientTransport()` borrows ``sharedClient``, a process-wide client that never needs shutting down.
/// `AsyncHTTPClientTransport(configuration:)` owns a client of its own: call ``shutdown()`` when done.
/// `AsyncHTTPClientTransport(client:)` borrows a client you own and never shuts it down.
public struct AsyncHTTPClientTransport: ClientTransport {
    /// Limits applied to every request.
    public struct Options: Sendable {
        /// Attempt timeout when the request context sets none.
        public var defaultTimeout: Duration = .seconds(60)
        /// Larger response bodies fail the attempt rather than exhaust memory.
        public var maxResponseBytes: Int = 64 * 1024 * 1024

        public init(defaultTimeout: Duration = .seconds(60), maxResponseBytes: Int = 64 * 1024 * 1024) {
            self.defaultTimeout = defaultTimeout
            self.maxResponseBytes = maxResponseBytes
        }
    }

    /// The underlying client.
    public let client: HTTPClient
    public let options: Options
    private let ownsClient: Bool

    /// A process-wide client like `HTTPClient.shared`, but one that reports a failed connection at once instead of
    /// re-dialling silently until the deadline: Loupe's own retry policy decides, and every try is recorded.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Uses ``sharedClient``.
    public init(options: Options = Options()) {
        self.client = Self.sharedClient
        self.options = options
        self.ownsClient = false
    }

    /// Borrows `client`; the caller shuts it down.
    public init(client: HTTPClient, options: Options = Options()) {
        self.client = client
        self.options = options
        self.ownsClient = false
    }

    /// Creates and owns a client with `configuration` (for example with pinned trust roots); call ``shutdown()``.
    public init(configuration: HTTPClient.Configuration, options: Options = Options()) {
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.options = options
        self.ownsClient = true
    }

    /// Shuts the client down if this transport created it; a no-op for borrowed clients.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        do {
            let response = try await executeHead(request, body: body, context: context)
            let buffer = try await response.body.collect(upTo: options.maxResponseBytes)
            return RawResponse(head: Self.makeHead(response), body: Data(buffer: buffer))
        } catch {
            throw failure(error, request: request, context: context)
        }
    }

    /// Sends the request and returns once the response head has arrived (AHC's deadline covers up to the head).
    func executeHead(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> HTTPClientResponse {
        let outgoing = try Self.makeRequest(request, body: body, attempt: context.attempt)
        let timeout = context.timeout ?? options.defaultTimeout
        let response = try await client.execute(outgoing, timeout: .nanoseconds(Self.nanoseconds(timeout)))
        context.attempt?.markFirstByte()
        return response
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// The AHC request; a streamed body marks the attempt's request-sent time when its last chunk is taken (AHC's
    /// async API reports nothing else, so for other requests that phase stays unknown rather than guessed).
    static func makeRequest(_ request: HTTPRequest, body: RequestBody?, attempt: AttemptHandle? = nil) throws -> HTTPClientRequest {
        guard let url = request.url else { throw TransportError(.other, "request has no absolute URL") }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            if let data = body.bufferedData {
                outgoing.body = .bytes(ByteBuffer(data: data))
            } else {
                let chunks = SentMarkingSequence(base: try body.makeStream(), attempt: attempt)
                outgoing.body = .stream(chunks, length: body.length.map { .known($0) } ?? .unknown)
            }
        }
        return outgoing
    }

    static func makeHead(_ response: HTTPClientResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return HTTPResponse(
            status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
            headerFields: fields)
    }
}
