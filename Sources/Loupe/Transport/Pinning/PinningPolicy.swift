import Foundation

/// The pins a transport enforces on every TLS connection it makes: a chain passes when it matches any one pin.
///
/// List more than one pin to keep a backup: the next certificate or key you will rotate to, or a second CA. A
/// policy never widens trust: the system's trust store is not consulted as a fallback, so a server that matches
/// no pin is refused even when its certificate is publicly trusted.
///
/// ```swift
/// let policy = try PinningPolicy(pins: CertificatePin.certificates(contentsOf: caFile))
/// let transport = try AsyncHTTPClientTransport(pinning: policy)
/// ```
public struct PinningPolicy: Sendable, Hashable {
    /// The accepted pins; any one match passes.
    public let pins: [CertificatePin]

    /// A policy from `pins`; an empty list is refused because it could only mean "trust nothing" or "trust all".
    public init(pins: [CertificatePin]) throws {
        guard !pins.isEmpty else { throw PinningError(.invalidPin, detail: "a pinning policy needs at least one pin") }
        self.pins = pins
    }

    /// SPKI SHA-256 pins in base64 (`sha256/…` accepted): the key in use now and the keys you may rotate to.
    public static func publicKeys(primary: String, backups: [String]) throws -> PinningPolicy {
        try PinningPolicy(pins: ([primary] + backups).map { try CertificatePin.publicKeySHA256(base64: $0) })
    }

    /// The pinned certificates, DER, in the order given.
    public var certificates: [Data] { pins.compactMap(\.certificateDER) }

    /// The pinned SPKI SHA-256 digests, in the order given.
    public var publicKeyHashes: [Data] { pins.compactMap(\.publicKeySHA256) }

    /// Whether a chain passes: `chain` holds each certificate's DER and `publicKeyHashes` its SPKI digests.
    ///
    /// For transports that see the chain after validating it (Apple's `SecTrust`); AsyncHTTPClient enforces
    /// certificate pins as trust anchors or exact server certificates instead.
    public func matches(chain: [Data], publicKeyHashes presented: [Data]) -> Bool {
        let certificates = Set(self.certificates), keys = Set(publicKeyHashes)
        return chain.contains(where: certificates.contains) || presented.contains(where: keys.contains)
    }
}
