import Foundation
import HTTPTypes

/// A response head and its collected body, as transports return it and middleware pass it back.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct RawResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse {
        // Without `oldValue` a change to the head is still made in place (SE-0268); only the status is read again.
        didSet { status = head.status }
    }
    /// The body bytes (empty when the response had none).
    public var body: Data
    /// The protocol version the server answered with (`HTTP/1.0`, `HTTP/1.1`, `HTTP/2`), when the transport knows
    /// it. swift-http-types' `HTTPResponse` has no version field, so it travels beside the head.
    public var httpVersion: Optional<String>
    /// The size of the whole body when ``body`` holds only its first bytes (a body streamed elsewhere, such as to a
    /// file or standard output, keeps a prefix for the recorder); nil when ``body`` is the whole body.
    public var bodySize: Optional<Int>

    public init(head: HTTPResponse, body: Data = Data(), httpVersion: String? = nil, bodySize: Int? = nil) {
        self.head = head
        self.status = head.status
        self.body = body
        self.httpVersion = httpVersion
        self.bodySize = bodySize
    }

    /// The size of the whole body: ``bodySize`` when the body was kept in part, else the bytes in ``body``.
    public var fullBodySize: Int { bodySize ?? body.count }

    /// A response with the given status, header fields and body.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: Data = Data(), httpVersion: String? = nil) {
        self.init(head: HTTPResponse(status: status, headerFields: headerFields), body: body, httpVersion: httpVersion)
    }

    /// The status code, ``head``'s, read from it once: `HTTPResponse.status` parses the `:status` field's text on
    /// every read, and a resilient stack asked it eight times a request.
    public private(set) var status: HTTPResponse.Status
}
