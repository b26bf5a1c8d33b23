import Foundation
import HTTPTypes

/// A response head and its collected body, as transports return it and middleware pass it back.
public struct RawResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body bytes (empty when the response had none).
    public var body: Data

    public init(head: HTTPResponse, body: Data = Data()) {
        self.head = head
        self.body = body
    }

    /// A response with the given status, header fields and body.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.init(head: HTTPResponse(status: status, headerFields: headerFields), body: body)
    }

    /// The status code.
    public var status: HTTPResponse.Status { head.status }
}
