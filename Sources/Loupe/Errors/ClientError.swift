import Foundation
import HTTPTypes

/// The one error a ``Client`` throws: what was asked, what came back (if anything), where it failed and why.
public struct ClientError: Error, CustomStringConvertible {

    /// Where in the life of a request something failed.
    public struct Stage: Hashable, Sendable, CustomStringConvertible {
        enum Base: String { case encoding, middleware, transport, validation, decoding, cancelled, abortedAtBreakpoint = "aborted at a breakpoint" }
        let base: Base
        public var description: String { base.rawValue }

        /// Building the request (URL, body encoding) failed.
        public static let encoding = Stage(base: .encoding)
        /// A middleware threw (for example an open circuit breaker or a failed token refresh).
        public static let middleware = Stage(base: .middleware)
        /// The transport failed: no response arrived.
        public static let transport = Stage(base: .transport)
        /// A response arrived with a status the caller does not accept.
        public static let validation = Stage(base: .validation)
        /// The response body could not be decoded.
        public static let decoding = Stage(base: .decoding)
        /// The calling task was cancelled.
        public static let cancelled = Stage(base: .cancelled)
        /// The viewer aborted the request while a breakpoint held it (``AbortedAtBreakpointError``).
        public static let abortedAtBreakpoint = Stage(base: .abortedAtBreakpoint)
    }

    /// The operation name of the endpoint.
    public var operation: String
    /// The request as the app asked for it (before middleware), when it could be built.
    public var request: HTTPRequest?
    /// The response, when one arrived.
    public var response: RawResponse?
    /// Where it failed.
    public var stage: Stage
    /// The error that caused it.
    public var underlyingError: any Error
    /// The exchange this failure belongs to in the recorder.
    public var exchangeID: UUID?

    public init(operation: String, request: HTTPRequest?, response: RawResponse? = nil, stage: Stage,
                underlyingError: any Error, exchangeID: UUID? = nil) {
        self.operation = operation
        self.request = request
        self.response = response
        self.stage = stage
        self.underlyingError = underlyingError
        self.exchangeID = exchangeID
    }

    public var description: String {
        var text = "\(operation) failed at \(stage)"
        if let response { text += " (HTTP \(response.status.code))" }
        return text + ": \(underlyingError)"
    }
}

/// The status of a response was not acceptable.
public struct UnacceptableStatusError: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    public init(status: Int) { self.status = status }
    public var description: String { "unacceptable status \(status)" }
}

/// Marks errors that a policy raised without sending the request (an open circuit, an exhausted budget).
public protocol ShortCircuitError: Error {}

/// A breakpoint held the request (or its response) and the viewer aborted it. The client reports
/// it at stage ``ClientError/Stage/abortedAtBreakpoint``; no policy retries it.
public struct AbortedAtBreakpointError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule whose breakpoint held the request.
    public var rule: String
    public init(rule: String) { self.rule = rule }
    public var description: String { "aborted by the viewer while held by rule '\(rule)'" }
}
