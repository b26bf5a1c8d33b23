import Foundation
import HTTPTypes

/// What a retry decider learns about the attempt that just ended.
public struct RetryContext: Sendable {
    /// The endpoint's operation name, so one closure can decide per endpoint.
    public var operation: String
    /// The request as the retry middleware sends it.
    public var request: HTTPRequest
    /// The attempt that just ended (1 for the first).
    public var attempt: Int
    /// The response, when one arrived.
    public var response: RawResponse?
    /// The error, when the attempt failed without a response.
    public var error: (any Error)?
    /// Time spent on this request so far, measured on the client's clock.
    public var elapsed: Duration

    /// Creates a context; the middleware does this, tests of deciders may too.
    public init(operation: String, request: HTTPRequest, attempt: Int, response: RawResponse?, error: (any Error)?, elapsed: Duration) {
        self.operation = operation
        self.request = request
        self.attempt = attempt
        self.response = response
        self.error = error
        self.elapsed = elapsed
    }

    /// The transport failure kind, when the attempt failed on the wire.
    public var transportErrorKind: TransportError.Kind? { (error as? TransportError)?.kind }
}
