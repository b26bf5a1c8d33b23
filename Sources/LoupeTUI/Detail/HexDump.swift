import Foundation

/// A short `xxd`-style dump: offset, 16 bytes in hex, and the printable ASCII.
enum HexDump {
    static func lines(_ data: Data, limit: Int = 256, indent: String = "  ") -> [StyledLine] {
        let bytes = [UInt8](data.prefix(limit))
        var lines: [StyledLine] = []
        for start in stride(from: 0, to: bytes.count, by: 16) {
            let row = bytes[start..<min(start + 16, bytes.count)]
            var hex = row.map { hexByte($0) }.joined(separator: " ")
            hex += String(repeating: " ", count: (16 - row.count) * 3)
            let ascii = String(row.map { (0x20..<0x7F).contains($0) ? Character(Unicode.Scalar($0)) : "." })
            lines.append(StyledLine([
                .init(indent + offset(start), .dim), .init("  " + hex + "  "), .init(ascii, .dim),
            ]))
        }
        if data.count > limit {
            lines.append(StyledLine(indent + "… \(QuantityFormat.grouped(data.count - limit)) more bytes", style: .dim))
        }
        return lines
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func offset(_ value: Int) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
