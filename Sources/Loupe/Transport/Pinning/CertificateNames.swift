import Foundation

/// Reads just enough DER to compare a certificate's issuer and subject names.
///
/// Transports that use pins as trust anchors need to know which pins can anchor a chain: only a self-issued
/// certificate (a root, or a self-signed server certificate) can, because the TLS stacks we build on do not
/// accept a partial chain. Everything else is skipped, not parsed.
enum CertificateNames {
    /// Whether the issuer and subject names are byte-identical; `nil` when the DER is not a certificate.
    static func isSelfIssued(_ der: Data) -> Bool? {
        // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber, signature,
        //                             issuer, validity, subject, ... }, ... }
        var outer = DERReader(der)
        guard let certificate = outer.next(), certificate.tag == 0x30 else { return nil }
        var certificateFields = DERReader(certificate.content)
        guard let tbs = certificateFields.next(), tbs.tag == 0x30 else { return nil }
        var fields = DERReader(tbs.content)
        var serial = fields.next()
        if serial?.tag == 0xA0 { serial = fields.next() }  // skip the explicit version
        guard serial != nil, fields.next() != nil,  // signature algorithm
              let issuer = fields.next(), fields.next() != nil,  // validity
              let subject = fields.next(), issuer.tag == 0x30, subject.tag == 0x30
        else { return nil }
        return issuer.content == subject.content
    }
}

/// Walks the top-level elements of DER bytes.
struct DERReader {
    private var bytes: ArraySlice<UInt8>

    init(_ data: Data) { bytes = ArraySlice(data) }
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The next element's tag and content, or `nil` at the end or on malformed (or indefinite) lengths.
    mutating func next() -> (tag: UInt8, content: ArraySlice<UInt8>)? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.startIndex
        let tag = bytes[index]
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), bytes.endIndex - index >= count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard bytes.endIndex - index >= length else { return nil }
        let content = bytes[index..<index + length]
        bytes = bytes[(index + length)...]
        return (tag, content)
    }
}
