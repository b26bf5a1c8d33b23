import Foundation

/// Reads RFC 8259 JSON into a ``JSONValue``, keeping key order and number text: a consumer of the one
/// ``JSONTokenizer`` that checks the strict grammar and builds values.
///
/// Foundation's `JSONSerialization` turns numbers into `Double` (so `0.1` and `0.10000000000000001`, or two
/// 20-digit ids, would compare equal) and loses key order; a diff needs both. Open containers are kept on a stack
/// of its own, never the call stack; nesting deeper than ``maximumDepth`` is refused all the same (a hostile body
/// would build a value that deep), and the diff then compares the text by lines.
///
/// HAR import reads its entries with it too, `matchingDecoder`: what it then takes, `JSONDecoder` takes and reads
/// the same, so the importer can leave the rest to the decoder and its errors (``parse(_:matchingDecoder:)``).
package struct JSONParser {
    /// Arrays and objects nested deeper than this are refused.
    package static let maximumDepth = 200

    /// An open container: an array's elements so far, or an object's members and the key awaiting its value.
    /// A struct changed in place on the stack (`stack[top].elements.append`): an enum payload would be moved out
    /// and back per value, and an array that is not uniquely referenced while it is appended to is copied whole,
    /// each time.
    private struct Frame {
        let isObject: Bool
        var elements: [JSONValue] = []
        var object = JSONObject()
        var key = ""
    }

    /// The document in `data`, or nil when it is not JSON (including trailing garbage and too deep nesting).
    ///
    /// - Parameter matchingDecoder: Also nil for the two things the tree reads otherwise than `JSONDecoder`: a
    ///   repeated key (the tree keeps the last value, the decoder the first) and a `\u` escape of a lone surrogate
    ///   (the tree reads U+FFFD, the decoder refuses the document).
    package static func parse(_ data: Data, matchingDecoder: Bool = false) -> JSONValue? {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            // A UTF-8 byte order mark is tolerated, as most parsers do.
            let start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
            return parse(JSONTokenizer(bytes, from: start), matchingDecoder: matchingDecoder)
        }
    }

    /// The strict tokens (``JSONTokenizer/nextStrict()``): a string token is well-formed UTF-8 without raw
    /// control characters, so it is read once.
    private static func parse(_ tokens: JSONTokenizer, matchingDecoder: Bool) -> JSONValue? {
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
                    guard let name = Self.key(first, &tokens, matchingDecoder) else { return nil }
                    stack.append(Frame(isObject: true, key: name))
                    continue
                } else {
                    stack.append(Frame(isObject: false))
                    pending = first
                    continue
                }
            default:
                guard let leaf = Self.scalar(token, tokens, matchingDecoder) else { return nil }
                value = leaf
            }
            // Add the value to its container, then close every container it ends.
            closing: while true {
                let top = stack.count - 1
                guard top >= 0 else { return tokens.nextStrict().kind == .end ? value : nil }
                let after = tokens.nextStrict()
                if stack[top].isObject {
                    let key = stack[top].key
                    guard stack[top].object.add(key, value) || !matchingDecoder else { return nil }
                    if after.kind == .comma {
                        guard let next = Self.key(tokens.nextStrict(), &tokens, matchingDecoder) else { return nil }
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
    private static func key(_ token: JSONToken, _ tokens: inout JSONTokenizer, _ matchingDecoder: Bool) -> String? {
        guard token.kind == .string, let name = string(token, tokens.bytes, matchingDecoder),
              tokens.nextStrict().kind == .colon
        else { return nil }
        return name
    }

    /// A string, number or literal token as a value; nil for anything else (including a string or literal cut short).
    private static func scalar(_ token: JSONToken, _ tokens: JSONTokenizer, _ matchingDecoder: Bool) -> JSONValue? {
        // A number at the end of the text is whole: the document ends there.
        guard !token.isCut || token.kind == .number else { return nil }
        let bytes = tokens.bytes
        switch token.kind {
        case .string:
            return string(token, bytes, matchingDecoder).map(JSONValue.string)
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

    /// A strict string token's contents; nil on a bad escape (or, `matchingDecoder`, a lone surrogate).
    private static func string(_ token: JSONToken, _ bytes: UnsafeBufferPointer<UInt8>, _ matchingDecoder: Bool) -> String? {
        guard token.kind == .string, !token.isCut else { return nil }
        // Checked by the tokenizer's strict pass (no raw control characters, well-formed UTF-8).
        let contents = UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)])
        return token.isPlain ? String(decoding: contents, as: UTF8.self) : unescaped(contents, matchingDecoder)
    }

    /// Well-formed UTF-8 with escapes, resolved; nil on an escape JSON does not have.
    ///
    /// Written straight into the string's storage: every escape is longer than what it stands for, so the
    /// contents' length is room enough, and the runs between escapes are copied a word a step with the scan that
    /// finds the next backslash (``JSONByteScan/copyToStop(from:start:to:)``, whose whole-word stores stay within
    /// that room as the output never gets ahead of the input). A body of JSON text in a HAR escapes a quote every
    /// few bytes: a byte array appended escape by escape, then copied into a string, cost more than the parse.
    private static func unescaped(_ contents: UnsafeBufferPointer<UInt8>, _ matchingDecoder: Bool) -> String? {
        var failed = false
        let text = String(unsafeUninitializedCapacity: contents.count) { buffer -> Int in
            guard let out = buffer.baseAddress else { return 0 }
            var at = 0
            var index = 0
            while true {
                // The contents hold no raw quote or control character (the strict tokens), so this stops at a backslash.
                let stop = JSONByteScan.copyToStop(from: contents, start: index, to: out + at)
                at += stop - index
                guard stop < contents.count else { return at }
                guard stop + 1 < contents.count else { break }
                let byte = contents[stop + 1]
                index = stop + 2
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out[at] = byte
                case UInt8(ascii: "b"): out[at] = 0x08
                case UInt8(ascii: "f"): out[at] = 0x0C
                case UInt8(ascii: "n"): out[at] = 0x0A
                case UInt8(ascii: "r"): out[at] = 0x0D
                case UInt8(ascii: "t"): out[at] = 0x09
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape(contents, at: &index, matchingDecoder) else {
                        failed = true
                        return 0
                    }
                    UTF8.encode(scalar) { unit in
                        out[at] = unit
                        at += 1
                    }
                    continue
                default:
                    failed = true
                    return 0
                }
                at += 1
            }
            failed = true
            return 0
        }
        return failed ? nil : text
    }

    /// The scalar of a `\u` escape whose four hex digits are at `index` (a surrogate pair's second half read
    /// too); a lone surrogate is the replacement character, as JSONSerialization reads it, or nil when
    /// `matchingDecoder`.
    private static func unicodeEscape(
        _ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, _ matchingDecoder: Bool
    ) -> Unicode.Scalar? {
        let lone: Unicode.Scalar? = matchingDecoder ? nil : "\u{FFFD}"
        guard let high = hexQuad(bytes, at: &index) else { return nil }
        guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) ?? lone }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { return lone }
        index += 2
        guard let low = hexQuad(bytes, at: &index), (0xDC00..<0xE000).contains(low) else { return lone }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    /// Four hex digits at `index` (nothing else: `UInt32(_:radix:)` would take a `+` as well).
    private static func hexQuad(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = ASCIIBytes.hexValue(bytes[index + offset]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}
