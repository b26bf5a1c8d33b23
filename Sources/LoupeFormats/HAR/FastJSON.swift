import Foundation
import LoupeTrace

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
        data.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                var parser = Parser(bytes: bytes)
                guard let value = parser.value(depth: 0) else { return nil }
                parser.skipWhitespace()
                return parser.index == bytes.count ? value : nil
            }
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
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

        private mutating func string() -> String? {
            PlainJSONString.read(bytes, at: &index)
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
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
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
