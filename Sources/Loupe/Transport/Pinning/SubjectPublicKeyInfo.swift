import Foundation

/// Frames a bare public key as the DER SubjectPublicKeyInfo that SPKI pins hash.
///
/// Apple's `SecKeyCopyExternalRepresentation` returns a key without its algorithm (PKCS #1 `RSAPublicKey` for
/// RSA, an uncompressed X9.63 point for EC), while a pin is the SHA-256 of the whole SPKI that `openssl x509
/// -pubkey | openssl pkey -pubin -outform der` prints. Building the header from the algorithm and the key length,
/// rather than copying fixed prefixes, covers every RSA size; tests compare the result with openssl's bytes.
package enum SubjectPublicKeyInfo {
    /// Key algorithms Apple's Security framework exposes for server certificates.
    package enum Algorithm: Sendable {
        case rsa, ecP256, ecP384, ecP521

        /// The DER AlgorithmIdentifier SEQUENCE.
        var identifier: [UInt8] {
            let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
            switch self {
            case .rsa: // rsaEncryption, NULL parameters
                return sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
            case .ecP256: // prime256v1
                return sequence(ecPublicKey + [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
            case .ecP384: // secp384r1
                return sequence(ecPublicKey + [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22])
            case .ecP521: // secp521r1
                return sequence(ecPublicKey + [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23])
            }
        }
    }

    /// `SEQUENCE { algorithm, BIT STRING { 0 unused bits, rawKey } }`.
    package static func der(_ algorithm: Algorithm, rawKey: Data) -> Data {
        let bitString = [0x03] + length(rawKey.count + 1) + [0x00] + [UInt8](rawKey)
        return Data(sequence(algorithm.identifier + bitString))
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] {
        [0x30] + length(content.count) + content
    }

    /// DER definite length: short form below 128, else 0x80 | byte count, then big-endian bytes.
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
