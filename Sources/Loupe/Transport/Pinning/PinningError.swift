import Foundation

/// A pinned connection was refused (the server matched no pin), or pins could not be used at all.
///
/// Transports fail closed: they never fall back to the system's trust store when pins are configured. On the wire
/// the failure surfaces as a ``TransportError`` of kind ``TransportError/Kind/tls`` whose message is this error's
/// description, and as an ``ExchangeEventKind/pinningFailure`` event carrying the same fields.
public struct PinningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why pinning failed; a struct so that reasons can be added without breaking callers.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The chain neither leads to a pinned certificate nor contains a pinned public key.
        public static let noMatchingPin = Reason(name: "no matching pin")
        /// A pinned certificate was presented, but not for the host that was asked for.
        public static let hostnameMismatch = Reason(name: "hostname mismatch")
        /// The chain failed validation (expired, malformed, wrong usage) before pins could be compared.
        public static let chainInvalid = Reason(name: "invalid chain")
        /// A pin could not be read (bad PEM, DER or digest).
        public static let invalidPin = Reason(name: "invalid pin")
        /// The policy holds no pin that this transport can enforce.
        public static let unsupportedPins = Reason(name: "unsupported pins")
    }

    /// Why it failed.
    public var reason: Reason
    /// The server's host name, when a connection was attempted.
    public var host: String?
    /// How many pins the policy holds.
    public var pinCount: Int
    /// `sha256/…` public-key digests of the presented chain, leaf first, when the transport could compute them:
    /// what to pin, or what changed.
    public var presentedPublicKeys: [String]
    /// The transport's own words (for example BoringSSL's `CERTIFICATE_VERIFY_FAILED`).
    public var detail: String

    public init(_ reason: Reason, host: String? = nil, pinCount: Int = 0, presentedPublicKeys: [String] = [], detail: String) {
        self.reason = reason
        self.host = host
        self.pinCount = pinCount
        self.presentedPublicKeys = presentedPublicKeys
        self.detail = detail
    }

    public var description: String {
        var text = "certificate pinning failed"
        if let host { text += " for \(host)" }
        text += ": \(reason)"
        if pinCount > 0 { text += " (\(pinCount) pin\(pinCount == 1 ? "" : "s"))" }
        if !detail.isEmpty { text += ": \(detail)" }
        if !presentedPublicKeys.isEmpty { text += "; presented \(presentedPublicKeys.joined(separator: ", "))" }
        return text
    }

    /// The fields as event attributes for the recorder.
    public var eventAttributes: [String: String] {
        var attributes = ["reason": reason.description, "pins": String(pinCount), "detail": detail]
        if let host { attributes["host"] = host }
        if !presentedPublicKeys.isEmpty { attributes["presented"] = presentedPublicKeys.joined(separator: " ") }
        return attributes
    }

    /// Records this failure on the exchange, so the recorder shows which host was refused and why.
    public func record(in context: RequestContext) {
        context.record(.pinningFailure, description, attributes: eventAttributes)
    }

    /// What a transport throws for this failure: a TLS ``TransportError`` that names the pin failure.
    public var transportError: TransportError { TransportError(.tls, description) }
}
