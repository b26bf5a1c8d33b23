import Foundation

/// Reads RFC 8259 JSON into a ``JSONValue``, keeping key order and number text: a consumer of the one
/// ``JSONTokenizer`` (DECISIONS 210–219) that checks the strict grammar and builds values.
///
/// Foundation's `JSONSerialization` turns numbers into `Double` (so `0.1` and `0.10000000000000001`, or two
/// 20-digit ids, would compare equal) and loses key order; a diff needs both. Open containers are kept on a stack
/// of its own, never the call stack; nesting deeper than ``maximumDepth`` is refused all the same (a hostile body
/// would build a value that deep), and the diff then compares the text by lines.
package struct JSONParser {
    /// Arrays and objects nested deeper than this are refused.
    package static let maximumDepth = 200

    /// An open container: an array's elements so far, or an object's members and the key awaiting its value.
    /// A struct changed in place on the stack (`stack[top].elements.append`): an enum payload would be moved out
    /// and back per value, and an array that is not uniquely referenced while it is appended to is copied whole,
    /// each time (DECISIONS 215).
    private struct Frame {
        let isObject: Bool
        var elements: [JSONValue] = []
        var object = JSONObject()
        var key = ""
    }

    /// The document in `data`, or nil when it is not JSON (including trailing garbage and too deep nesting).
    package static func parse(_ data: Data) -> JSONValue? {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            // A UTF-8 byte order mark is tolerated, as most parsers do.
            let start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
            return parse(JSONTokenizer(bytes, from: start))
        }
    }

    /// The strict tokens (``JSONTokenizer/nextStrict()``): a string token is well-formed UTF-8 without raw
    /// control characters, so it is read once.
    private static func parse(_ tokens: JSONTokenizer) -> JSONValue? {
        var tokens = tokens
        var stack: [Frame] = []
        // An array's first token, read to see whether the array is empty, and then the first element's.
        var pending: JSONToken?
        while true {
            // A value is expected here: the document, an array's element, or an object's member after its key.
            let token: JSONToken
            if let first = pending {
                token = first
                pending = nil
            } else {
                token = tokens.nextStrict()
            }
            var value: JSONValue
            switch token.kind {
            case .beginArray, .beginObject:
                guard stack.count < maximumDepth else { return nil }
                let isObject = token.kind == .beginObject
                let first = tokens.nextStrict()
                if first.kind == (isObject ? .endObject : .endArray) {
                    value = isObject ? .object(JSONObject()) : .array([])
                } else if isObject {
                    guard let name = Self.key(first, &tokens) else { return nil }
                    stack.append(Frame(isObject: true, key: name))
                    continue
                } else {
                    stack.append(Frame(isObject: false))
                    pending = first
                    continue
                }
            default:
                guard let leaf = Self.scalar(token, tokens) else { return nil }
                value = leaf
            }
            // Add the value to its container, then close every container it ends.
            closing: while true {
                let top = stack.count - 1
                guard top >= 0 else { return tokens.nextStrict().kind == .end ? value : nil }
                let after = tokens.nextStrict()
                if stack[top].isObject {
                    let key = stack[top].key
                    stack[top].object[key] = value
                    if after.kind == .comma {
                        guard let next = Self.key(tokens.nextStrict(), &tokens) else { return nil }
                        stack[top].key = next
                        break closing
                    }
                    guard after.kind == .endObject else { return nil }
                    value = .object(stack.removeLast().object)
                } else {
                    stack[top].elements.append(value)
                    if after.kind == .comma { break closing }
                    guard after.kind == .endArray else { return nil }
                    value = .array(stack.removeLast().elements)
                }
            }
        }
    }

    /// An object's key (the string `token`) and the colon after it.
    private static func key(_ token: JSONToken, _ tokens: inout JSONTokenizer) -> String? {
        guard token.kind == .string, let name = string(token, tokens.bytes), tokens.nextStrict().kind == .colon
        else { return nil }
        return name
    }

    /// A string, number or literal token as a value; nil for anything else (including a string or literal cut short).
    private static func scalar(_ token: JSONToken, _ tokens: JSONTokenizer) -> JSONValue? {
        // A number at the end of the text is whole: the document ends there.
        guard !token.isCut || token.kind == .number else { return nil }
        let bytes = tokens.bytes
        switch token.kind {
        case .string:
            return string(token, bytes).map(JSONValue.string)
        case .number:
            guard tokens.numberVerdict(token) == .valid else { return nil }
            return .number(JSONNumber(String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)))
        case .literal:
            switch bytes[token.start] {
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            default: return .null
            }
        default:
            return nil
        }
    }

    /// A strict string token's contents; nil on a bad escape.
    private static func string(_ token: JSONToken, _ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard token.kind == .string, !token.isCut else { return nil }
        // Checked by the tokenizer's strict pass (no raw control characters, well-formed UTF-8).
        let contents = UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)])
        return token.isPlain ? String(decoding: contents, as: UTF8.self) : unescaped(contents)
    }

    /// Well-formed UTF-8 with escapes, resolved; nil on an escape JSON does not have.
    private static func unescaped(_ contents: UnsafeBufferPointer<UInt8>) -> String? {
        var scalars = String.UnicodeScalarView()
        var run = 0
        var index = 0
        while index < contents.count {
            guard contents[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: contents[run..<index]), as: UTF8.self).unicodeScalars)
            guard let scalar = escape(contents, at: &index) else { return nil }
            scalars.append(scalar)
            run = index
        }
        scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: contents[run...]), as: UTF8.self).unicodeScalars)
        return String(scalars)
    }

    /// The escape at `index` (its backslash), leaving `index` after it.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Unicode.Scalar? {
        guard index + 1 < bytes.count else { return nil }
        let byte = bytes[index + 1]
        index += 2
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
            guard let high = hexQuad(bytes, at: &index) else { return nil }
            guard (0xD800..<0xDC00).contains(high) else {
                // A lone low surrogate has no scalar: shown as the replacement character, as JSONSerialization does.
                return Unicode.Scalar(high) ?? "\u{FFFD}"
            }
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return "\u{FFFD}" }
            index += 2
            guard let low = hexQuad(bytes, at: &index), (0xDC00..<0xE000).contains(low) else { return "\u{FFFD}" }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        default: return nil
        }
    }

    private static func hexQuad(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32? {
        guard index + 4 <= bytes.count,
              let value = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self), radix: 16)
        else { return nil }
        index += 4
        return value
    }
}
