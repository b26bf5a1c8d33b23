import Foundation
import LoupeTrace

/// Reads RFC 8259 JSON into a ``JSONValue``, keeping key order and number text.
///
/// Foundation's `JSONSerialization` turns numbers into `Double` (so `0.1` and `0.10000000000000001`, or two
/// 20-digit ids, would compare equal) and loses key order; a diff needs both. Nesting deeper than ``maximumDepth``
/// is refused rather than risking the stack on a hostile body; the diff then compares the text by lines.
package struct JSONParser {
    /// Arrays and objects nested deeper than this are refused.
    package static let maximumDepth = 200

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// The document in `data`, or nil when it is not JSON (including trailing garbage and too deep nesting).
    package static func parse(_ data: Data) -> JSONValue? {
        var parser = JSONParser(bytes: Array(data))
        // A UTF-8 byte order mark is tolerated, as most parsers do.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == parser.bytes.count ? value : nil
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func consume(_ literal: String) -> Bool {
        let expected = Array(literal.utf8)
        guard bytes[index...].starts(with: expected) else { return false }
        index += expected.count
        return true
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        case .some: return number().map(JSONValue.number)
        case nil: return nil
        }
    }

    private mutating func object() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value() else { return nil }
            object[key] = member
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(object)
            default: return nil
            }
        }
    }

    private mutating func array() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: return nil
            }
        }
    }

    /// A string literal at `index` (which is at its opening quote); nil on bad escapes, raw control characters or
    /// invalid UTF-8.
    private mutating func string() -> String? {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index  // start of the bytes not yet copied
        func flush(_ end: Int, into scalars: inout String.UnicodeScalarView) -> Bool {
            guard run < end else { return true }
            guard let text = String(validating: bytes[run..<end], as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            return true
        }
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                guard flush(index, into: &scalars) else { return nil }
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard flush(index, into: &scalars), let scalar = escape() else { return nil }
                scalars.append(scalar)
                run = index
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// The escape at `index` (its backslash), leaving `index` after it.
    private mutating func escape() -> Unicode.Scalar? {
        index += 1
        guard let byte = current else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let high = hexQuad() else { return nil }
            guard (0xD800..<0xDC00).contains(high) else {
                // A lone low surrogate has no scalar: shown as the replacement character, as JSONSerialization does.
                return Unicode.Scalar(high) ?? "\u{FFFD}"
            }
            guard consume("\\u"), let low = hexQuad(), (0xDC00..<0xE000).contains(low) else { return "\u{FFFD}" }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        default: return nil
        }
    }

    private mutating func hexQuad() -> UInt32? {
        guard index + 4 <= bytes.count,
              let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
        index += 4
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> JSONNumber? {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            let begin = parser.index
            while let byte = parser.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { parser.index += 1 }
            return parser.index - begin
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            return nil
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { return nil }
        }
        return JSONNumber(String(decoding: bytes[start..<index], as: UTF8.self))
    }
}
