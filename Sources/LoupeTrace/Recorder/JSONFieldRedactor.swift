import Foundation

/// Redacts the values of named object members in JSON text in one pass over its bytes, without parsing it.
///
/// A parser would reject a body cut at the recorder's cap or nested deeper than its limit, and re-serialising
/// would reorder keys and change numbers; this reads the tokens of the one ``JSONTokenizer``
/// and checks no grammar, so every byte outside a redacted value is kept, broken or truncated JSON is redacted as
/// far as it goes, and nesting depth costs nothing.
/// A string followed by `:` is a key; when its (unescaped) name is in the set, the value after it (a string, a
/// scalar, or a whole object or array, up to the end of the text if unterminated) becomes `"[REDACTED]"`.
enum JSONFieldRedactor {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")
    private static let markerToken = Array("\"\(RedactionPolicy.marker)\"".utf8)

    /// Whether the body's first non-blank byte opens an object or an array.
    static func looksLikeJSON(_ body: Data) -> Bool {
        // Over the bytes themselves: `Data.first(where:)` went through its generic iterator.
        body.withUnsafeBytes { raw in looksLikeJSON(raw.bindMemory(to: UInt8.self)) }
    }

    /// ``looksLikeJSON(_:)`` on bytes already at hand.
    static func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first(where: { !isBlank($0) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// The redacted body, or `nil` when no value changed; redacted values go to `secrets`.
    /// Keys in `headerNames` are redacted too, their values read as header values (the token after `Bearer`
    /// is collected as well as the whole value).
    static func redact(_ body: Data, names: RedactionNames, headerNames: RedactionNames = [],
                       collecting secrets: inout SecretCollector) -> Data? {
        body.withUnsafeBytes { raw in
            redact(raw.bindMemory(to: UInt8.self), names: names, headerNames: headerNames, collecting: &secrets).map { Data($0) }
        }
    }

    /// ``redact(_:names:headerNames:collecting:)`` on bytes already at hand: the redacted bytes, or `nil` when no
    /// value changed.
    static func redact(_ bytes: UnsafeBufferPointer<UInt8>, names: RedactionNames, headerNames: RedactionNames,
                       collecting secrets: inout SecretCollector) -> [UInt8]? {
        var output: [UInt8]?
        var copied = 0
        let count = bytes.count
        var tokens = JSONTokenizer(bytes)
        while true {
            // Only strings can be keys: the tokens between them are skipped as one scan for the next quote.
            let token = tokens.nextString()
            guard token.kind != .end else { break }
            let stringEnd = stringEnd(token, &tokens)
            let next = JSONTokenizer.skipWhitespace(bytes, from: stringEnd)
            guard next < count, bytes[next] == colon else { continue }
            // A key: is it one of ours?
            let keyEnd = contentEnd(bytes, start: token.start, end: stringEnd)
            // Most keys are no secret's: the filters turn them away before the name is made, normalized and hashed.
            // A key without an escape is its own text, so its bytes are asked directly, once for both filters; the
            // same answers as asking the string `unescaped` makes of them.
            let raw = UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<min(keyEnd, count)])
            var escapedName: String?
            let mayBeField: Bool, mayBeHeader: Bool
            if !raw.contains(backslash) {
                let probe = NameFilter.probe(raw)
                (mayBeField, mayBeHeader) = (names.mayContain(probe: probe), headerNames.mayContain(probe: probe))
            } else {
                let unescapedName = unescaped(bytes, from: token.start + 1, to: keyEnd)
                (mayBeField, mayBeHeader) = (names.mayContain(unescapedName), headerNames.mayContain(unescapedName))
                escapedName = unescapedName
            }
            guard mayBeField || mayBeHeader else {
                tokens.position = next + 1
                continue
            }
            let name = escapedName ?? unescaped(bytes, from: token.start + 1, to: keyEnd)
            let normalized = RedactionNames.normalized(name)
            let isField = mayBeField && names.containsNormalized(normalized)
            let isHeader = !isField && mayBeHeader && headerNames.containsNormalized(normalized)
            guard isHeader || isField else {
                tokens.position = next + 1
                continue
            }
            let valueStart = JSONTokenizer.skipWhitespace(bytes, from: next + 1)
            let valueEnd = endOfValue(bytes, from: valueStart)
            let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            if valueStart < count, !value.elementsEqual(markerToken) {
                if isHeader, value.first == quote {
                    secrets.addHeader(name: name, value: unescaped(value, from: 1, to: contentEnd(value, start: 0, end: value.count)))
                } else {
                    collectLeaves(value, into: &secrets)
                }
                if output == nil { output = []; output!.reserveCapacity(count) }
                output!.append(contentsOf: bytes[copied..<valueStart])
                output!.append(contentsOf: markerToken)
                copied = valueEnd
            }
            tokens.position = valueEnd
        }
        guard var output else { return nil }
        output.append(contentsOf: bytes[copied..<count])
        return output
    }

    /// The index just past the string `token`, or the end of the text if it never closes; the tokenizer is left
    /// after it.
    private static func stringEnd(_ token: JSONToken, _ tokens: inout JSONTokenizer) -> Int {
        let end = token.isCut ? tokens.bytes.count : token.end
        tokens.position = end
        return end
    }

    /// The index just past the string starting at `start` (a `"`), or the end of the text if it never closes.
    private static func endOfString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var tokens = JSONTokenizer(bytes, from: start)
        return stringEnd(tokens.next(), &tokens)
    }

    /// Where the contents of the string from `start` to `end` stop: before its closing quote, if it has one.
    private static func contentEnd(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> Int {
        end > start + 1 && bytes[end - 1] == quote ? end - 1 : end
    }

    /// The index just past the value starting at `start`: a string, a bracketed value (strings inside skipped),
    /// or a scalar running to the next `,`, `}`, `]` or blank.
    private static func endOfValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < bytes.count else { return bytes.count }
        switch bytes[start] {
        case quote:
            return endOfString(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Brackets of either kind counted alike, as far as the text goes; everything else is skipped.
            var depth = 0
            var tokens = JSONTokenizer(bytes, from: start)
            while true {
                let token = tokens.next()
                switch token.kind {
                case .beginObject, .beginArray: depth += 1
                case .endObject, .endArray:
                    depth -= 1
                    if depth == 0 { return token.end }
                case .string: _ = stringEnd(token, &tokens)
                case .end: return bytes.count
                default: break
                }
            }
        default:
            var index = start
            while index < bytes.count, !isBlank(bytes[index]),
                  bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"), bytes[index] != UInt8(ascii: "]") {
                index += 1
            }
            return index
        }
    }

    /// Adds the string and number values inside a redacted value (keys and `true`/`false`/`null` are not secrets).
    private static func collectLeaves(_ value: UnsafeBufferPointer<UInt8>, into secrets: inout SecretCollector) {
        var tokens = JSONTokenizer(value)
        while true {
            let token = tokens.next()
            switch token.kind {
            case .end:
                return
            case .string:
                let end = stringEnd(token, &tokens)
                let next = JSONTokenizer.skipWhitespace(value, from: end)
                if next >= value.count || value[next] != colon {
                    secrets.add(unescaped(value, from: token.start + 1, to: contentEnd(value, start: token.start, end: end)))
                }
            case .number:
                // A number runs to the next delimiter here, as a scalar value does.
                let end = endOfValue(value, from: token.start)
                secrets.add(String(decoding: UnsafeBufferPointer(rebasing: value[token.start..<end]), as: UTF8.self))
                tokens.position = end
            default:
                break
            }
        }
    }

    /// The text of a JSON string's contents with its escapes resolved (invalid escapes are kept as written).
    static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<min(end, bytes.count)])
        guard slice.contains(backslash) else { return String(decoding: slice, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var utf8 = [UInt8]()
        func flush() {
            scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        var index = 0
        var pendingHigh: UInt32?
        while index < slice.count {
            let byte = slice[index]
            guard byte == backslash, index + 1 < slice.count else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = slice[index + 1]
            if escape == UInt8(ascii: "u"), index + 6 <= slice.count,
               let code = UInt32(String(decoding: UnsafeBufferPointer(rebasing: slice[(index + 2)..<(index + 6)]), as: UTF8.self), radix: 16) {
                flush()
                if (0xD800..<0xDC00).contains(code) {
                    pendingHigh = code
                } else if (0xDC00..<0xE000).contains(code), let high = pendingHigh {
                    let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                    if let scalar = Unicode.Scalar(combined) { scalars.append(scalar) }
                    pendingHigh = nil
                } else if let scalar = Unicode.Scalar(code) {
                    scalars.append(scalar)
                }
                index += 6
                continue
            }
            pendingHigh = nil
            switch escape {
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            default: utf8.append(escape)  // \" \\ \/ and anything invalid
            }
            index += 2
        }
        flush()
        return String(scalars)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
