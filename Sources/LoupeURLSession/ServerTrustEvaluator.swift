#if canImport(Security) && canImport(CryptoKit)
import CryptoKit
import Foundation
import Loupe
import Security

/// Checks a server's `SecTrust` against a `PinningPolicy`: ordinary validation for the host first, then the pins.
///
/// Pinned certificates are added as anchors, so a private CA or a self-signed leaf validates; system anchors stay
/// enabled because a pinned intermediate or leaf of a public chain still needs its root. Trust is never widened:
/// whatever validated, the chain must then contain a pinned certificate or a certificate whose SPKI SHA-256 is
/// pinned, or the connection is refused.
struct ServerTrustEvaluator: Sendable {
    let policy: PinningPolicy

    /// `nil` when the chain passes; otherwise why it was refused.
    func evaluate(_ trust: SecTrust, host: String) -> PinningError? {
        // Fail closed if the trust object cannot be set up: evaluating it as it came could skip the host check.
        guard SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess else {
            return refusal(.chainInvalid, host, "could not apply the SSL policy for the host")
        }
        let anchors = policy.certificates.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        if !anchors.isEmpty {
            guard SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
                  SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess
            else { return refusal(.chainInvalid, host, "could not add the pinned certificates as anchors") }
        }
        var error: CFError?
        let valid = SecTrustEvaluateWithError(trust, &error)
        // After evaluation the chain runs from the leaf to the anchor that validated it.
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        let keys = chain.map(Self.publicKeySHA256)
        let presented = keys.map { $0.map { "sha256/" + $0.base64EncodedString() } ?? "unsupported key" }
        guard valid else {
            let detail = error.map { CFErrorCopyDescription($0) as String } ?? "trust evaluation failed"
            return refusal(.chainInvalid, host, detail, presented: presented)
        }
        let certificates = chain.map { SecCertificateCopyData($0) as Data }
        if policy.matches(chain: certificates, publicKeyHashes: keys.compactMap { $0 }) { return nil }
        return refusal(.noMatchingPin, host, "no certificate or public key in the chain is pinned", presented: presented)
    }

    private func refusal(
        _ reason: PinningError.Reason, _ host: String, _ detail: String, presented: [String] = []
    ) -> PinningError {
        PinningError(reason, host: host, pinCount: policy.pins.count, presentedPublicKeys: presented, detail: detail)
    }

    /// SHA-256 of the certificate's DER SubjectPublicKeyInfo, or `nil` for a key type SPKI pins do not cover.
    static func publicKeySHA256(of certificate: SecCertificate) -> Data? {
        guard let key = SecCertificateCopyKey(certificate),
              let attributes = SecKeyCopyAttributes(key) as? [String: Any],
              let algorithm = algorithm(attributes),
              let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?
        else { return nil }
        return Data(SHA256.hash(data: SubjectPublicKeyInfo.der(algorithm, rawKey: raw)))
    }

    private static func algorithm(_ attributes: [String: Any]) -> SubjectPublicKeyInfo.Algorithm? {
        guard let type = attributes[kSecAttrKeyType as String] as? String else { return nil }
        if type == kSecAttrKeyTypeRSA as String { return .rsa }
        guard type == kSecAttrKeyTypeECSECPrimeRandom as String else { return nil }
        switch (attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue {
        case 256: return .ecP256
        case 384: return .ecP384
        case 521: return .ecP521
        default: return nil
        }
    }
}
#endif
