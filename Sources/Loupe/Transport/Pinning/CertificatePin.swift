import Foundation

/// One thing a server's certificate chain may match: a whole certificate, or the SHA-256 of a public key.
///
/// A certificate pin (DER bytes of a leaf, intermediate or root) works on every transport: AsyncHTTPClient makes a
/// root (self-issued) pin its only trust anchor and matches a CA-issued pin against the server's own certificate.
/// A public-key pin (`sha256/…` of the SubjectPublicKeyInfo, as OkHttp and HPKP spell it)
/// survives certificate renewal with the same key, but needs a transport that can inspect the chain during the
/// handshake (`URLSessionTransport` on Apple platforms).
public struct CertificatePin: Sendable, Hashable, CustomStringConvertible {
    enum Value: Hashable, Sendable {
        case certificate(Data)
        case publicKeySHA256(Data)
    }

    let value: Value

    /// A certificate in DER form (the bytes of a `.cer`/`.der` file).
    public static func certificate(der: Data) throws -> CertificatePin {
        // Every DER certificate is an ASN.1 SEQUENCE; this catches a PEM or a key passed by mistake.
        guard der.count > 64, der.first == 0x30 else {
            throw PinningError(.invalidPin, detail: "not a DER certificate (\(der.count) bytes)")
        }
        return CertificatePin(value: .certificate(der))
    }

    /// Every certificate in PEM text, in order (a chain file gives several pins).
    public static func certificates(pem: String) throws -> [CertificatePin] {
        let blocks = try PEMBlocks.decode(pem, label: "CERTIFICATE")
        guard !blocks.isEmpty else { throw PinningError(.invalidPin, detail: "no PEM CERTIFICATE block found") }
        return try blocks.map { try certificate(der: $0) }
    }

    /// Every certificate in a PEM file, or the one certificate in a DER file.
    public static func certificates(contentsOf file: URL) throws -> [CertificatePin] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw PinningError(.invalidPin, detail: "cannot read \(file.path): \(error.localizedDescription)")
        }
        if data.first == 0x30 { return [try certificate(der: data)] }
        return try certificates(pem: String(decoding: data, as: UTF8.self))
    }

    /// The SHA-256 digest (32 bytes) of a DER SubjectPublicKeyInfo.
    public static func publicKeySHA256(_ digest: Data) throws -> CertificatePin {
        guard digest.count == 32 else {
            throw PinningError(.invalidPin, detail: "a SHA-256 digest has 32 bytes, got \(digest.count)")
        }
        return CertificatePin(value: .publicKeySHA256(digest))
    }

    /// A base64 SPKI SHA-256 digest, with or without OkHttp's `sha256/` prefix.
    public static func publicKeySHA256(base64: String) throws -> CertificatePin {
        let text = base64.hasPrefix("sha256/") ? String(base64.dropFirst("sha256/".count)) : base64
        guard let digest = Data(base64Encoded: text.trimmingCharacters(in: .whitespaces)) else {
            throw PinningError(.invalidPin, detail: "not base64: \(base64)")
        }
        return try publicKeySHA256(digest)
    }

    /// The DER bytes when this pins a certificate.
    public var certificateDER: Data? {
        if case .certificate(let der) = value { return der }
        return nil
    }

    /// For a certificate pin, whether it is self-issued (a root or a self-signed server certificate) and so can
    /// anchor a chain on its own; `nil` for key pins and unreadable DER.
    public var isSelfIssued: Bool? {
        certificateDER.flatMap(CertificateNames.isSelfIssued)
    }

    /// The digest when this pins a public key.
    public var publicKeySHA256: Data? {
        if case .publicKeySHA256(let digest) = value { return digest }
        return nil
    }

    public var description: String {
        switch value {
        case .certificate(let der): "certificate (\(der.count) bytes DER)"
        case .publicKeySHA256(let digest): "sha256/" + digest.base64EncodedString()
        }
    }
}

/// Extracts the base64 bodies of `-----BEGIN label-----` blocks; anything between blocks is ignored.
enum PEMBlocks {
    static func decode(_ text: String, label: String) throws -> [Data] {
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        var blocks: [Data] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw PinningError(.invalidPin, detail: "PEM block \(blocks.count + 1) is not valid base64")
            }
            blocks.append(der)
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
