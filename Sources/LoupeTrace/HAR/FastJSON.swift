import Foundation

/// JSON text read into a small tree by a strict parser that gives up (`nil`) on anything it does not take as plain:
/// a `\u` escape, a raw control character, invalid UTF-8, a number outside JSON's grammar, a trailing comma, nesting
/// deeper than ``maxDepth``. What it does take, `JSONDecoder` takes too and reads the same; what it gives up on goes
/// to `JSONDecoder`, so results and errors stay the decoder's (``HARFastDecoding``).
indirect enum FastJSON: Equatable {
    case string(String)
    /// The number's text, already checked against JSON's grammar.
    case number(String)
    case bool(Bool)
    case null
    case array([FastJSON])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: FastJSON
    }

    static let maxDepth = 64

    /// The value that is the whole of `data`, or `nil`.
    static func parse(_ data: Data) -> FastJSON? {
        data.withUnsafeBytes { bytes in
            var parser = Parser(bytes: bytes)
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.index == bytes.count ? value : nil
        }
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, HARImporter.isJSONWhitespace(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> FastJSON? {
            skipWhitespace()
            guard index < bytes.count, depth < FastJSON.maxDepth else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(FastJSON.string)
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number().map(FastJSON.number)
            }
        }

        private mutating func object(depth: Int) -> FastJSON? {
            index += 1
            var members: [Member] = []
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string(),
                      take(UInt8(ascii: ":")), let value = value(depth: depth + 1) else { return nil }
                members.append(Member(key: key, value: value))
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? .object(members) : nil
        }

        private mutating func array(depth: Int) -> FastJSON? {
            index += 1
            var elements: [FastJSON] = []
            if take(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .array(elements) : nil
        }

        /// Whether `byte` is next (after whitespace), reading it if so.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func literal(_ text: StaticString, _ value: FastJSON) -> FastJSON? {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count,
                  text.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + count]) }) else { return nil }
            index += count
            return value
        }

        /// From the opening quote past the closing one; escapes other than `\u` decoded.
        private mutating func string() -> String? {
            index += 1
            let start = index
            var unescaped: [UInt8]?
            var runStart = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let tail = UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])
                    index += 1
                    guard var text = unescaped else { return String(validating: tail, as: UTF8.self) }
                    text.append(contentsOf: tail)
                    return String(validating: text, as: UTF8.self)
                }
                guard byte >= 0x20 else { return nil }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                guard index + 1 < bytes.count, let decoded = Self.escaped(bytes[index + 1]) else { return nil }
                unescaped = (unescaped ?? []) + UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])
                unescaped?.append(decoded)
                index += 2
                runStart = index
            }
            return nil
        }

        private static func escaped(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and nothing of a number right after.
        private mutating func number() -> String? {
            let start = index
            _ = take(UInt8(ascii: "-"), exactly: true)
            if take(UInt8(ascii: "0"), exactly: true) {
                // A leading zero stands alone.
            } else {
                guard digits() > 0 else { return nil }
            }
            if take(UInt8(ascii: "."), exactly: true), digits() == 0 { return nil }
            if take(UInt8(ascii: "e"), exactly: true) || take(UInt8(ascii: "E"), exactly: true) {
                _ = take(UInt8(ascii: "+"), exactly: true) || take(UInt8(ascii: "-"), exactly: true)
                guard digits() > 0 else { return nil }
            }
            if index < bytes.count, Self.continuesNumber(bytes[index]) { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        private mutating func take(_ byte: UInt8, exactly: Bool) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        private static func continuesNumber(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "e")
                || byte == UInt8(ascii: "E")
        }
    }
}
