import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import Loupe
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Records the requests of an AsyncHTTPClient `HTTPClient` used directly, through both its `execute` APIs, with
/// one wrapper at the place the client is made: call sites keep calling `execute`.
///
/// ```swift
/// let http = RecordingHTTPClient(HTTPClient.shared, recorder: inspector)
/// let response = try await http.execute(request, timeout: .seconds(30))            // async API
/// let old = try await http.execute(request: HTTPClient.Request(url: url)).get()    // EventLoopFuture API
/// ```
/// Each call becomes one exchange (operation `METHOD /path`, or the `operation` given) with one attempt: AHC's own
/// redirects and connection retries are not visible here. The async API's response body stays streamed: its first
/// bytes (up to the recorder's body cap) are kept as the app reads it, and the exchange is recorded when the app
/// has read it to the end or dropped it; a body of known length within the cap is read at once. The async API's
/// request body is opaque (`HTTPClientRequest.Body` exposes no bytes), so it is not recorded; the future API's is,
/// as it is written. The wrapper does not own the client: shut it down as before.
public struct RecordingHTTPClient: Sendable {
    /// The wrapped client.
    public let client: HTTPClient
    let recording: AdapterRecording

    /// Records `client`'s requests into `recorder` (a `NetworkTraceInspector`, or any observer), keeping at most
    /// `bodyCap` bytes of each body (pass the inspector's `configuration.bodyCap`).
    public init(_ client: HTTPClient, recorder: any ClientObserver, bodyCap: Int = 1 << 20) {
        self.client = client
        recording = AdapterRecording(observer: recorder, adapter: RecordingAdapter.asyncHTTPClient, bodyCap: bodyCap)
    }

    // MARK: The async API

    /// `HTTPClient.execute(_:deadline:logger:)`, recorded.
    public func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger? = nil,
                        operation: String? = nil) async throws -> HTTPClientResponse {
        let head = Self.head(method: request.method, url: request.url, headers: request.headers)
        let exchange = recording.start(operation: operation ?? AdapterRequestHead.operationName(head), request: head, requestBody: nil)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline, logger: logger)
        } catch {
            exchange.finish(response: nil, body: nil, error: error)
            throw error
        }
        let firstByte = Date()
        let responseHead = AsyncHTTPClientTransport.makeHead(status: response.status, headers: response.headers)
        var recorded = response
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length <= recording.bodyCap {
            // Small and of known length: read now (within the cap) and handed on whole; no tee per chunk.
            do {
                let buffer = try await response.body.collect(upTo: max(length, 1))
                exchange.finish(response: responseHead, body: Data(buffer: buffer), firstByte: firstByte)
                recorded.body = .stream(OneBuffer(buffer: buffer))
            } catch {
                exchange.finish(response: responseHead, body: nil, error: error, firstByte: firstByte)
                throw error
            }
            return recorded
        }
        let tee = AdapterBodyTee(exchange: exchange, response: responseHead, firstByte: firstByte)
        recorded.body = .stream(TeeBuffers(base: response.body, tee: tee))
        return recorded
    }

    /// `HTTPClient.execute(_:timeout:logger:)`, recorded.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount, logger: Logger? = nil,
                        operation: String? = nil) async throws -> HTTPClientResponse {
        try await execute(request, deadline: .now() + timeout, logger: logger, operation: operation)
    }

    // MARK: The EventLoopFuture API

    /// `HTTPClient.execute(request:deadline:logger:)`, recorded: the request body as it is written, the response
    /// as AHC collected it.
    public func execute(request: HTTPClient.Request, deadline: NIODeadline? = nil, logger: Logger? = nil,
                        operation: String? = nil) -> EventLoopFuture<HTTPClient.Response> {
        let head = Self.head(method: request.method, url: request.url.absoluteString, headers: request.headers)
        var request = request
        // Only a request with a body needs somewhere to keep it (most calls are GETs: no allocation, no lock).
        let sent = request.body.map { _ in SentBody(cap: recording.bodyCap) }
        if let body = request.body, let sent {
            request.body = .stream(contentLength: body.contentLength) { writer in
                body.stream(HTTPClient.Body.StreamWriter { part in
                    if case .byteBuffer(let buffer) = part { sent.append(buffer) }
                    return writer.write(part)
                })
            }
        }
        // Reported when the request ends, with its start time from now: only then are the body's bytes known.
        let startedAt = Date()
        let operation = operation ?? AdapterRequestHead.operationName(head)
        let future = logger.map { client.execute(request: request, deadline: deadline, logger: $0) }
            ?? client.execute(request: request, deadline: deadline)
        future.whenComplete { [recording] (result: Result<HTTPClient.Response, any Error>) in
            let exchange = recording.start(operation: operation, request: head, requestBody: sent?.bytes, startedAt: startedAt)
            switch result {
            case .success(let response):
                let responseHead = AsyncHTTPClientTransport.makeHead(status: response.status, headers: response.headers)
                let body = response.body.map { Data(buffer: $0) }
                exchange.finish(response: responseHead, body: body.map { $0.prefix(recording.bodyCap) },
                                bodySize: body.flatMap { $0.count > recording.bodyCap ? $0.count : nil })
            case .failure(let error):
                exchange.finish(response: nil, body: nil, error: error)
            }
        }
        return future
    }

    /// The request head as swift-http-types has it: the recorder's one model of a request.
    static func head(method: HTTPMethod, url: String, headers: HTTPHeaders) -> HTTPRequest {
        let (scheme, authority, path) = target(of: url)
        return HTTPRequest(method: HTTPRequest.Method(method.rawValue) ?? .get, scheme: scheme, authority: authority,
                           path: path, headerFields: AsyncHTTPClientTransport.fields(headers))
    }

    /// The scheme, authority (without userinfo) and path with query of an absolute URL string: split by hand
    /// (``AdapterRequestHead/split(_:)``, shared with the URLSession adapters). AsyncHTTPClient has already accepted the
    /// URL (it fails the request otherwise), so only the split is needed here: `URLComponents` parsed it all again,
    /// the host through ICU's IDNA mapping, on every request. Something
    /// that does not start with `scheme://` is left to `URLComponents`.
    static func target(of url: String) -> (scheme: String?, authority: String?, path: String) {
        if let split = AdapterRequestHead.split(url) { return (split.scheme, split.authority, split.path) }
        return parsedTarget(of: url)
    }

    private static func parsedTarget(of url: String) -> (scheme: String?, authority: String?, path: String) {
        let parsed = URLComponents(string: url)
        let authority = parsed?.host.map { host in parsed?.port.map { "\(host):\($0)" } ?? host }
        var path = parsed?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        if let query = parsed?.percentEncodedQuery { path += "?" + query }
        return (parsed?.scheme, authority, path)
    }
}

/// The first bytes of a request body as AHC writes it.
private final class SentBody: Sendable {
    private let cap: Int
    private let data = Mutex(Data())

    init(cap: Int) { self.cap = cap }

    func append(_ buffer: ByteBuffer) {
        data.withLock { data in
            let room = cap - data.count
            if room > 0 { data.append(contentsOf: buffer.readableBytesView.prefix(room)) }
        }
    }

    var bytes: Data? {
        let bytes = data.withLock { $0 }
        return bytes.isEmpty ? nil : bytes
    }
}

/// A response body already read, handed on as its one buffer: what AsyncHTTPClient's `.bytes(_:)` hands on, without
/// its `CollectionOfOne(buffer).async` (generic types nested three deep inside AHC's type-erased stream, their
/// metadata looked up by the runtime on every response).
struct OneBuffer: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffer: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        var buffer: ByteBuffer?

        mutating func next() async throws -> ByteBuffer? {
            defer { buffer = nil }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }
}

/// A response body passed through to the app buffer by buffer, its first bytes kept by the tee.
struct TeeBuffers: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: HTTPClientResponse.Body
    let tee: AdapterBodyTee

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let tee: AdapterBodyTee

        mutating func next() async throws -> ByteBuffer? {
            do {
                guard let buffer = try await base.next() else {
                    tee.finish()
                    return nil
                }
                tee.consume(buffer.readableBytesView)
                return buffer
            } catch {
                tee.finish(error: error)
                throw error
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), tee: tee) }
}
