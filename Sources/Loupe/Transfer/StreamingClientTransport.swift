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

    /// The number of body bytes a transport hands on for a response with `head` to a `method` request, when the head
    /// says: its `Content-Length`, except where that does not count those bytes.
    ///
    /// `nil` for a response that has no content whatever its `Content-Length` says (RFC 9110 §6.4.1: a `HEAD`'s, a
    /// 1xx, `204` or `304`), and for one with a `Content-Encoding` other than `identity`: a transport that decodes
    /// it (AsyncHTTPClient and URLSession both inflate gzip and deflate) hands on more bytes than the wire carried.
    /// The transport's own parser still holds the wire bytes to the declared length.
    public static func expectedBodyLength(of head: HTTPResponse, answering method: HTTPRequest.Method) -> Int64? {
        let status = head.status.code
        if method == .head || (100..<200).contains(status) || status == 204 || status == 304 { return nil }
        let encodings = head.headerFields[values: .contentEncoding]
        if encodings.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty && $0.lowercased().trimmingCharacters(in: .whitespaces) != "identity" }) {
            return nil
        }
        return head.headerFields[.contentLength].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
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
