import Foundation

/// A header-list column exactly as ``StoredJSON/text(of:)`` writes it, `[{"name":"…","value":"…"},…]` with no
/// space and every string escaped by the encoder's rules, read in place without a `String` per name and value
/// (by ``StoredJSON``, the columns' one reader).
///
/// Those rules (`"`, `\` and control characters escaped, `\b \t \n \f \r` or else `\u00xx` in lower case, nothing
/// else) are the ones a HAR export writes strings with, so an export copies the escaped bytes as they are: that is
/// why only this exact form qualifies. Any other text (spaces, another key order, `\/`, `\u0041`, upper-case hex,
/// extra members: a row edited by hand or written by another tool) is read by ``StoredJSON/headers(_:)`` as before.
package struct StoredHeaderText: Sendable {
    /// The column's text.
    package let text: String

    /// `nil` unless `text` is in the exact form.
    package init?(_ text: String) {
        guard StoredJSON.isExactHeaderList(text) else { return nil }
        self.text = text
    }

    /// Calls `body` with each header's name and value, still escaped, in order.
    package func forEach(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        StoredJSON.forEachExactHeader(text, body)
    }

    /// The text an escaped string stands for.
    package static func unescaped(_ escaped: UnsafeBufferPointer<UInt8>) -> String {
        guard escaped.contains(UInt8(ascii: "\\")) else { return String(decoding: escaped, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(escaped.count)
        var index = 0
        while index < escaped.count {
            let byte = escaped[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            switch escaped[index + 1] {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "u"):
                bytes.append((ASCIIBytes.hexValue(escaped[index + 4]) ?? 0) << 4 | (ASCIIBytes.hexValue(escaped[index + 5]) ?? 0))
                index += 4
            case let other: bytes.append(other)
            }
            index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
