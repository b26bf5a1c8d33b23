import Foundation

/// A transport failure in words every transport shares, so policies can decide without knowing the transport.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong on the wire.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The connection could not be made (refused, unreachable, DNS).
        public static let connectFailed = Kind(name: "connect failed")
        /// The connection broke mid-exchange.
        public static let connectionReset = Kind(name: "connection reset")
        /// The attempt took longer than its timeout.
        public static let timedOut = Kind(name: "timed out")
        /// TLS failed, including a certificate pin mismatch.
        public static let tls = Kind(name: "TLS failure")
        /// The request was cancelled.
        public static let cancelled = Kind(name: "cancelled")
        /// The body broke, or went over a limit, after part of it had been handed to a destination that cannot
        /// take bytes back (standard output): retrying would deliver a second copy, so no retry policy retries it.
        public static let deliveryInterrupted = Kind(name: "interrupted after delivery began")
        /// Anything else.
        public static let other = Kind(name: "transport failure")
    }

    public var kind: Kind
    /// The transport's own description of the failure.
    public var message: String
    /// What had arrived when the failure came after the response head (a connection closed mid-body, a timeout
    /// while the body trickled in): the status, the header fields and the body bytes so far. The client passes it
    /// to observers, so the recorder keeps it, marked incomplete, instead of an exchange with no response at all.
    public var partialResponse: RawResponse?

    public init(_ kind: Kind, _ message: String, partialResponse: RawResponse? = nil) {
        self.kind = kind
        self.message = message
        self.partialResponse = partialResponse
    }

    public var description: String { "\(kind): \(message)" }
}
