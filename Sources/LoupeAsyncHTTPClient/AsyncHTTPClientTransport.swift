import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTPCompression

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
        /// How the error for a body past the decompression limit tells the reader to raise it: an API by default;
        /// a command-line tool names its flag.
        public var raiseDecompressionLimit = "AsyncHTTPClientTransport(decompression:) or HTTPClient.Configuration.decompression"

        public init(defaultTimeout: Duration = .seconds(60), maxResponseBytes: Int = 64 * 1024 * 1024) {
            self.defaultTimeout = defaultTimeout
            self.maxResponseBytes = maxResponseBytes
        }
    }

    /// The underlying client.
    public let client: HTTPClient
    public let options: Options
    private let ownsClient: Bool
    /// The client's decompression limit in words (`25× the compressed size`), for AHC's own limit error (a client
    /// configured with AHC's limit); `nil` for a borrowed client (AHC does not expose its configuration).
    private let decompressionLimit: String?

    /// How far a compressed body inflates through ``sharedClient``: ``DecompressionLimit/standard``.
    public static let sharedDecompression = DecompressionLimit.standard

    /// A process-wide client like `HTTPClient.shared`, but one that reports a failed connection at once instead of
    /// re-dialling silently until the deadline: Loupe's own retry policy decides, and every try is recorded.
    public static let sharedClient: HTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration(decompression: sharedDecompression))

    /// ``sharedClient``'s configuration with another decompression limit: what
    /// ``init(decompression:options:)`` builds its client with.
    public static func configuration(decompression: DecompressionLimit) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.http1_1ConnectionDebugInitializer = { channel in
            channel.setOption(ChannelOptions.recvAllocator, value: largeReads)
        }
        configuration.redirectConfiguration = .follow(max: maxRedirects, allowCycles: false)
        return DecompressionGuard.apply(decompression, to: configuration)
    }

    /// The most redirects a request follows (AHC's default, which ``sharedClient`` keeps).
    public static let maxRedirects = 20

    /// NIO's adaptive read buffer, allowed to grow to 1 MiB (NIO's default stops at 64 KiB): a large body then
    /// takes a fraction of the reads, and of the wake-ups of the task reading a stream. It grows only while reads
    /// fill it, so small exchanges keep small buffers.
    static let largeReads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20)

    /// Uses ``sharedClient``.
    public init(options: Options = Options()) {
        self.client = Self.sharedClient
        self.options = options
        self.ownsClient = false
        self.decompressionLimit = nil
    }

    /// Creates and owns a client like ``sharedClient`` whose compressed bodies inflate at most as far as
    /// `decompression` allows; call ``shutdown()``.
    public init(decompression: DecompressionLimit, options: Options = Options()) {
        self.init(configuration: Self.configuration(decompression: decompression), options: options)
    }

    /// Borrows `client`; the caller shuts it down.
    public init(client: HTTPClient, options: Options = Options()) {
        self.client = client
        self.options = options
        self.ownsClient = false
        self.decompressionLimit = nil
    }

    /// Creates and owns a client with `configuration` (for example with pinned trust roots); call ``shutdown()``.
    public init(configuration: HTTPClient.Configuration, options: Options = Options()) {
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.options = options
        self.ownsClient = true
        self.decompressionLimit = DecompressionLimitText.describe(configuration.decompression)
    }

    /// Shuts the client down if this transport created it; a no-op for borrowed clients.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Sends the request and collects the response; the attempt's timeout bounds all of it, body included.
    ///
    /// A failure after the head arrived (connection closed mid-body, timeout, body over ``Options/maxResponseBytes``)
    /// throws a ``TransportError`` whose `partialResponse` holds the status, headers and bytes that came.
    public nonisolated(nonsending) func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let timeout = context.timeout ?? options.defaultTimeout
        let progress = ResponseProgress()
        do {
            return try await AttemptDeadline.run(timeout) { [self] timer in
                try await receive(request, body: body, context: context, timer: timer, into: progress)
            }
        } catch {
            let mapped = failure(explain(error, timeout: timeout, progress: progress), request: request, context: context)
            guard var transportError = mapped as? TransportError, let partial = progress.response else { throw mapped }
            transportError.partialResponse = partial
            throw transportError
        }
    }

    private func receive(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext, timer: AttemptTimer, into progress: ResponseProgress
    ) async throws -> RawResponse {
        let outgoing = try Self.makeRequest(request, body: body, attempt: context.attempt, checked: context.targetChecked(request))
        let response = try await client.execute(outgoing, deadline: timer.deadline)
        // Each hop's URL as an event: a token in a `Location` is then redacted, and scrubbed wherever it is echoed.
        for hop in response.history.dropFirst() { context.record(.redirect, "followed a redirect to \(hop.request.url)") }
        context.attempt?.markFirstByte()
        progress.begin(Self.makeHead(response), version: Self.versionText(response.version))
        try timer.bodyStarted()
        for try await chunk in response.body {
            guard progress.append(chunk, limit: options.maxResponseBytes) else { throw Self.tooLarge(options.maxResponseBytes) }
        }
        guard let complete = progress.response else { throw TransportError(.other, "the response head was lost") }
        return complete
    }

    /// ``explain(_:timeout:partial:)`` for `send`, with what arrived of the body so far.
    private func explain(_ error: any Error, timeout: Duration, progress: ResponseProgress) -> any Error {
        explain(error, timeout: timeout, partial: progress.response.map { ($0.body.count, $0.head.headerFields[.contentLength]) })
    }

    /// The error for a body past ``Options/maxResponseBytes``.
    static func tooLarge(_ limit: Int) -> TransportError {
        TransportError(.other, """
            the response body is larger than \(limit) bytes, this transport's limit; \
            raise it with AsyncHTTPClientTransport.Options(maxResponseBytes:)
            """)
    }

    /// Errors whose own text would not tell the user what happened or what to change, in words that do.
    /// `timeout` is the attempt's (its deadline is AHC's), `partial` the body bytes that came once the head did and
    /// the `Content-Length` the head declared.
    func explain(_ error: any Error, timeout: Duration?, partial: (bytes: Int, declared: String?)?) -> any Error {
        if let error = error as? HTTPClientError, error == .deadlineExceeded, let timeout {
            return AttemptDeadline.timedOut(timeout)
        }
        if let error = error as? HTTPClientError, error == .invalidURL { return Self.noURL }
        if let error = error as? HTTPClientError, error == .redirectCycleDetected {
            return TransportError(.other, "the redirects went round in a cycle (a Location led back to a URL already visited)")
        }
        if let error = error as? HTTPClientError, error == .redirectLimitReached {
            return TransportError(.other, "too many redirects (the client follows at most \(Self.maxRedirects))")
        }
        if let error = error as? HTTPParserError, error == .invalidEOFState, let partial {
            let expected = partial.declared.map { " of \($0)" } ?? ""
            return TransportError(
                .connectionReset, "the server closed the connection after \(partial.bytes)\(expected) body bytes")
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError, case .inflationError(let code) = error {
            return TransportError(.other, "the response body is not the gzip or deflate data its Content-Encoding names (zlib error \(code))")
        }
        if let error = error as? NIOHTTPDecompression.ExtraDecompressionError {
            return TransportError(.connectionReset, error == .truncatedData
                ? "the compressed response body ended before its end" : "the compressed response body has bytes after its end")
        }
        if let error = error as? DecompressionLimitExceeded {
            return TransportError(.other, DecompressionLimitText.message(limit: error.limit.description, raise: options.raiseDecompressionLimit))
        }
        if DecompressionLimitText.isLimitError(error) {
            return TransportError(.other, DecompressionLimitText.message(limit: decompressionLimit, raise: options.raiseDecompressionLimit))
        }
        return error
    }

    /// `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` (as curl writes them).
    static func versionText(_ version: HTTPVersion) -> String {
        version.major >= 2 ? "HTTP/\(version.major)" : "HTTP/\(version.major).\(version.minor)"
    }

    /// Whole nanoseconds, saturating: a timeout of centuries must not overflow `Int64` (NIO saturates from there).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, overflowed) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowed ? .max : sum
    }

    /// The request for the async API, which ``send(_:body:context:)`` uses; a streamed body marks the attempt's
    /// request-sent time when its last chunk is taken (the async API reports nothing else, so for other requests that
    /// phase stays unknown rather than guessed).
    /// `checked`: the client checked this request's authority already (``RequestContext/targetChecked(_:)``).
    static func makeRequest(
        _ request: HTTPRequest, body: RequestBody?, attempt: AttemptHandle? = nil, checked: Bool = false
    ) throws -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: try target(of: request, checked: checked))
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

    /// The absolute URL text, joined by hand as `HTTPRequest.url` joins it, without the `URL` that would be parsed
    /// only for AHC to parse its text again (AHC's `invalidURL` becomes ``noURL`` in `explain`); refuses a target
    /// SwiftNIO would trap on.
    static func target(of request: HTTPRequest, checked: Bool = false) throws -> String {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path,
              request.method != .connect, !(request.method == .options && path == "*") else { throw noURL }
        // The client checks this already; a transport used on its own must not let SwiftNIO trap on the port.
        if !checked, let problem = RequestTargetCheck.problem(in: request) { throw TransportError(.other, problem.message) }
        var url = String()
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        url += scheme
        url += "://"
        url += authority
        url += path
        return url
    }

    private static let noURL = TransportError(.other, "request has no absolute URL")

    static func makeHead(_ response: HTTPClientResponse) -> HTTPResponse {
        makeHead(status: response.status, headers: response.headers)
    }

    static func makeHead(status: HTTPResponseStatus, headers: HTTPHeaders) -> HTTPResponse {
        HTTPResponse(status: .init(code: Int(status.code), reasonPhrase: status.reasonPhrase), headerFields: fields(headers))
    }

    /// NIO's header fields as swift-http-types', in order, repeated ones too; a name that is not a valid token is
    /// left out. The one conversion of AsyncHTTPClient's heads, a response's here and a recorded request's in
    /// `RecordingHTTPClient`.
    static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        guard !headers.isEmpty else { return fields }
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let fieldName = knownName(name) ?? HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return fields
    }

    /// swift-http-types' own name for a field most responses carry, when `name` is spelled exactly as that name's
    /// `rawName` (so what is recorded keeps the server's spelling): no validation scan and no lowercased copy, which
    /// `HTTPField.Name(_:)` makes of every capitalized name. Any other name (or spelling) is validated as before.
    static func knownName(_ name: String) -> HTTPField.Name? {
        switch name {
        case "Content-Type": .contentType
        case "Content-Length": .contentLength
        case "Date": .date
        case "Server": .server
        case "Connection": .connection
        case "Cache-Control": .cacheControl
        case "ETag": .eTag
        case "Last-Modified": .lastModified
        case "Content-Encoding": .contentEncoding
        case "Vary": .vary
        default: nil
        }
    }
}
