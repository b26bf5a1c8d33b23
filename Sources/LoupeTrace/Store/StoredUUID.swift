import Foundation

/// Reads the ids a store holds (`8-4-4-4-12` hexadecimal text, as ``SQLiteTraceStore`` writes them) without
/// Foundation's parser, which on Linux goes through `sscanf` and is most of the cost of reading a row of a list.
/// Only the canonical form is read (either case of hex digits, the four dashes in place); Foundation's reads it alike.
/// Ids are written the same way, by hand: Foundation's `uuidString` formats through `sprintf` on Linux, once or
/// twice for every exchange stored.
package enum StoredUUID {
    /// `id` as `uuidString` writes it: upper-case `8-4-4-4-12` hexadecimal.
    package static func text(of id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { format(id, into: $0) }
    }

    /// Writes `id`'s 36 characters at the start of `out` (which must hold them); returns 36.
    package static func format(_ id: UUID, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        withUnsafeBytes(of: id.uuid) { bytes in
            let digits: StaticString = "0123456789ABCDEF"
            var index = 0
            for (offset, byte) in bytes.enumerated() {
                if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                    out[index] = UInt8(ascii: "-")
                    index += 1
                }
                out[index] = digits.utf8Start[Int(byte >> 4)]
                out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    package static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes in parse(bytes) }
    }

    /// ``parse(_:)`` of text as bytes (the live link's listener reads ids straight from a frame's JSON).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var index = 0
        let parsed = withUnsafeMutableBytes(of: &value) { out -> Bool in
            for offset in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard bytes[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                }
                guard let high = ASCIIBytes.hexValue(bytes[index]), let low = ASCIIBytes.hexValue(bytes[index + 1]) else { return false }
                out[offset] = high << 4 | low
                index += 2
            }
            return true
        }
        return parsed ? UUID(uuid: value) : nil
    }
}
