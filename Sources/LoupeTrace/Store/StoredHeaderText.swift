import Foundation

/// A header-list column exactly as ``StoredJSON/text(of:)`` writes it, `[{"name":"…","value":"…"},…]` with no
/// space and every string escaped by the encoder's rules, read in place without a `String` per name and value.
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
        var text = text
        let isExact = text.withUTF8 { Self.isExact($0) }
        guard isExact else { return nil }
        self.text = text
    }

    /// Calls `body` with each header's name and value, still escaped, in order.
    package func forEach(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        var text = text
        try text.withUTF8 { bytes in
            var index = 1  // past `[`
            while index < bytes.count - 1 {
                index += Self.namePrefix.count
                let nameStart = index
                index = Self.endOfString(bytes, from: index)
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
                index += Self.valuePrefix.count
                let valueStart = index
                index = Self.endOfString(bytes, from: index)
                try body(name, UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
                index += Self.itemEnd.count + 1  // `"}` and the `,` or `]` after it
            }
        }
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

    // MARK: The exact form

    private static let namePrefix = Array(#"{"name":""#.utf8)
    private static let valuePrefix = Array(#"","value":""#.utf8)
    private static let itemEnd = Array(#""}"#.utf8)

    static func isExact(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "["), bytes[bytes.count - 1] == UInt8(ascii: "]") else { return false }
        var index = 1
        if bytes.count == 2 { return true }
        while true {
            guard skip(namePrefix, in: bytes, at: &index), string(bytes, at: &index),
                  skip(valuePrefix, in: bytes, at: &index), string(bytes, at: &index),
                  skip(itemEnd, in: bytes, at: &index), index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "]") { return index == bytes.count - 1 }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index += 1
        }
    }

    private static func skip(_ expected: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Bool {
        guard index + expected.count <= bytes.count else { return false }
        for (offset, byte) in expected.enumerated() where bytes[index + offset] != byte { return false }
        index += expected.count
        return true
    }

    /// Moves `index` to the closing quote of a string escaped exactly by the encoder's rules.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Bool {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return true }
            guard byte >= 0x20 else { return false }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return false }
            switch bytes[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "t"), UInt8(ascii: "n"),
                 UInt8(ascii: "f"), UInt8(ascii: "r"):
                index += 2
            case UInt8(ascii: "u"):
                // `\u00xx` for the control characters without a short escape, lower-case hex.
                guard index + 5 < bytes.count, bytes[index + 2] == UInt8(ascii: "0"), bytes[index + 3] == UInt8(ascii: "0"),
                      bytes[index + 4] == UInt8(ascii: "0") || bytes[index + 4] == UInt8(ascii: "1"),
                      let low = ASCIIBytes.hexValue(bytes[index + 5]), !isUpperHex(bytes[index + 5]) else { return false }
                let value = (bytes[index + 4] - UInt8(ascii: "0")) << 4 | low
                guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(value) else { return false }
                index += 6
            default:
                return false
            }
        }
        return false
    }

    /// Where the string starting at `start` ends (its closing quote), in text already checked: the first quote
    /// not escaped, that is after an even run of backslashes (found with `memchr`, as values run long).
    private static func endOfString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var index = start
        while true {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index) else { return bytes.count }
            let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while quote - backslashes - 1 >= start, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote }
            index = quote + 1
        }
    }

    private static func isUpperHex(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F")
    }
}
