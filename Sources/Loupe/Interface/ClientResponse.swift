import Foundation
import HTTPTypes

/// A decoded value with everything known about the exchange that produced it.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct ClientResponse<Value: Sendable>: Sendable {
    /// The decoded body.
    public var value: Value
    /// The request as the app asked for it.
    public var request: HTTPRequest
    /// The final response head.
    public var head: HTTPResponse
    /// The final response body bytes.
    public var body: Data
    /// The recorder's id for this exchange.
    public var exchangeID: UUID
    /// Every attempt, in order (more than one when a middleware retried).
    public var attempts: [AttemptMetrics]
    public var startedAt: Date
    public var endedAt: Date
    /// The protocol version of the final response (`HTTP/1.0`, `HTTP/1.1`, `HTTP/2`), when the transport reports it.
    public var httpVersion: Optional<String>

    /// The final status.
    public var status: HTTPResponse.Status { head.status }
    /// The final response's header fields.
    public var headerFields: HTTPFields { head.headerFields }
    /// Start to end of the whole exchange, retries and waits included, in seconds.
    public var duration: TimeInterval { endedAt.timeIntervalSince(startedAt) }
}
