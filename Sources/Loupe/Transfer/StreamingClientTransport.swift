import Foundation
import HTTPTypes

/// A transport that can hand over a response body as it arrives instead of collecting it: what downloads to a file
/// need to run in constant memory. Transports that cannot stream are still used, with the body collected.
///
/// `stream` returns once the response head has arrived. The body stream yields chunks only as fast as they are
/// read (backpressure), ends with an error if the connection breaks, ends when the reading task is cancelled, and
/// releases the connection if it is dropped before the end. `context.timeout` bounds the wait for the head and
/// for each chunk, not the whole body, so a large download is not cut off while it is still moving.
public protocol StreamingClientTransport: ClientTransport {
    /// Sends `request` with `body` and returns the response head with its body still to be read.
    func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse
}

/// A response head and a body still arriving.
public struct StreamedResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body chunks, in order.
    public var body: AsyncThrowingStream<Data, any Error>
    /// The protocol version the server answered with, when the transport knows it (see ``RawResponse/httpVersion``).
    public var httpVersion: String?

    /// A response with `head` whose body is read from `body`.
    public init(head: HTTPResponse, body: AsyncThrowingStream<Data, any Error>, httpVersion: String? = nil) {
        self.head = head
        self.body = body
        self.httpVersion = httpVersion
    }

    /// Collects the body, failing with ``TransportError`` past `limit` bytes: how a streaming transport's `send`
    /// can be written.
    public func collect(upTo limit: Int = .max) async throws -> RawResponse {
        var data = Data()
        for try await chunk in body {
            guard data.count + chunk.count <= limit else {
                throw TransportError(.other, "the response body is larger than \(limit) bytes")
            }
            data.append(chunk)
        }
        return RawResponse(head: head, body: data, httpVersion: httpVersion)
    }
}
