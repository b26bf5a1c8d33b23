import Foundation

/// A `hexdump -C`-style dump: offset, 16 bytes in hex (a gap after eight), and the printable ASCII.
///
/// The rows are deferred (``StyledLine``): a 1 MiB body gives its 65,536 rows at once, each built when read.
enum HexDump {
    static func lines(_ data: Data, indent: String = "  ") -> [StyledLine] {
        let source = HexRowSource(data: data, indent: indent)
        return stride(from: 0, to: data.count, by: 16).map { StyledLine(deferred: source, $0, 0) }
    }
}

/// Builds the row of a hex dump that starts at a byte offset.
final class HexRowSource: DeferredLineSource {
    private static let digits = Array("0123456789abcdef".utf8)
    private let data: Data
    private let indent: String
    private let offsetDigits: Int

    init(data: Data, indent: String) {
        self.data = data
        self.indent = indent
        offsetDigits = max(4, String(max(data.count - 1, 0), radix: 16).count)
    }

    func widthBound(_: Int, _: Int) -> Int {
        indent.utf8.count + offsetDigits + 1 + 16 * 3 + 1 + 2 + 16
    }

    func spans(_ start: Int, _: Int) -> [StyledLine.Span] {
        // ` xx` per byte, one more space after the eighth, two before the ASCII.
        var hex = [UInt8](repeating: 0x20, count: 16 * 3 + 1 + 2)
        var ascii: [UInt8] = []
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for column in 0..<max(0, min(16, bytes.count - start)) {
                let byte = bytes[start + column]
                let at = column * 3 + (column < 8 ? 1 : 2)
                hex[at] = Self.digits[Int(byte >> 4)]
                hex[at + 1] = Self.digits[Int(byte & 0x0F)]
                ascii.append(byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: "."))
            }
        }
        let offset = String(start, radix: 16)
        return [
            .init(indent + String(repeating: "0", count: max(0, offsetDigits - offset.count)) + offset + " ", .dim),
            .init(String(decoding: hex, as: UTF8.self)),
            .init(String(decoding: ascii, as: UTF8.self), .dim),
        ]
    }
}
