import Foundation
import LoupeTrace

/// Skipping over JSON values by the rules of Foundation's `JSONDecoder` scanner, which checks structure but leaves
/// the insides of strings and numbers to the decoding of each value: whitespace is space, tab, CR and LF; strings
/// end at the first unescaped quote (a `\u` needs four more bytes, none a quote); numbers are a `-` or digit and
/// every following digit, `.`, `+`, `-`, `e` or `E`; a trailing comma before `]` or `}` is allowed; at most
/// ``JSONStream/maxDepth`` arrays and objects nest. The end of the text inside a value is ``JSONStream/truncated()``.
extension JSONStream {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")

    /// Skips whitespace; returns the next byte (not read), or `nil` at the end of the text.
    mutating func skipWhitespace() throws(HARImportError) -> UInt8? {
        while true {
            while index < window.count {
                let byte = window[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
                index += 1
            }
            guard try ensure(1) > 0 else { return nil }
        }
    }

    /// The next byte after whitespace, which the text must have.
    mutating func nextToken() throws(HARImportError) -> UInt8 {
        guard let byte = try skipWhitespace() else { throw truncated() }
        return byte
    }

    /// Skips one whole value (of any depth), checking its structure.
    mutating func skipValue() throws(HARImportError) {
        let base = depth
        // The arrays (false) and objects (true) this call has open, innermost last.
        var containers: [Bool] = []
        while true {
            // A value is expected here.
            let byte = try nextToken()
            switch byte {
            case Self.quote:
                try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try open()
                let isObject = byte == UInt8(ascii: "{")
                if try nextToken() == Self.closer(isObject) {
                    advance()
                    depth -= 1
                } else {
                    if isObject { try skipKey() }
                    containers.append(isObject)
                    continue
                }
            case UInt8(ascii: "t"): try skipLiteral("true")
            case UInt8(ascii: "f"): try skipLiteral("false")
            case UInt8(ascii: "n"): try skipLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
            default: throw malformed("invalid value")
            }
            // After a value: close what it ends, or go on to the next member.
            while depth > base {
                let isObject = containers[containers.count - 1]
                if try nextAfterMember(isObject: isObject) {
                    containers.removeLast()
                } else {
                    break
                }
            }
            if depth == base { return }
        }
    }

    /// After a member of the innermost container: `true` when the container closed (reading its end), `false`
    /// when another member follows (its key read too, for an object, when `skippingKey`). A comma before the end
    /// is allowed.
    mutating func nextAfterMember(isObject: Bool, skippingKey: Bool = true) throws(HARImportError) -> Bool {
        let byte = try nextToken()
        if byte == Self.closer(isObject) {
            advance()
            depth -= 1
            return true
        }
        guard byte == UInt8(ascii: ",") else { throw malformed("invalid value") }
        advance()
        if try nextToken() == Self.closer(isObject) {
            advance()
            depth -= 1
            return true
        }
        if isObject, skippingKey { try skipKey() }
        return false
    }

    /// Reads `{` or `[`, refusing to nest deeper than Foundation's decoder.
    mutating func open() throws(HARImportError) {
        guard depth < Self.maxDepth else { throw malformed("too many nested arrays or dictionaries") }
        advance()
        depth += 1
    }

    static func closer(_ isObject: Bool) -> UInt8 {
        isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
    }

    /// A key and its colon.
    mutating func skipKey() throws(HARImportError) {
        guard try nextToken() == Self.quote else { throw malformed("invalid value") }
        try skipString()
        guard try nextToken() == UInt8(ascii: ":") else { throw malformed("invalid value") }
        advance()
    }

    /// From the opening quote to just past the closing one. `validatingUTF8` for the keys of objects JSONDecoder
    /// decodes (the top level and `log`): it reads every key of those, so it refuses a bad one even when the key is
    /// not one it wants. Skipped objects and values are not checked, as it never reads them.
    mutating func skipString(validatingUTF8: Bool = false) throws(HARImportError) {
        advance()
        while true {
            while index < window.count {
                let from = index
                index = window.withUnsafeBufferPointer {
                    JSONByteScan.firstStop(in: $0, from: from, orNonASCII: validatingUTF8)
                }
                guard index < window.count else { break }
                let byte = window[index]
                if byte == Self.quote {
                    index += 1
                    return
                }
                if byte == Self.backslash {
                    try skipEscape()
                } else if byte >= 0x80, validatingUTF8 {
                    try skipMultibyte(byte)
                } else if byte < 0x20, validatingUTF8 {
                    // As JSONDecoder refuses one in a key it reads (values it skips are not looked at).
                    throw malformed("unescaped control character")
                } else {
                    index += 1
                }
            }
            guard try ensure(1) > 0 else { throw truncated() }
        }
    }

    /// One UTF-8 sequence of two to four bytes, checked as JSONDecoder checks it (no overlong forms, no surrogates,
    /// nothing past U+10FFFF): a key the whole-document decoder refuses must not pass because it was skipped.
    private mutating func skipMultibyte(_ lead: UInt8) throws(HARImportError) {
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: throw malformed("invalid UTF-8")
        }
        let available = try ensure(length)
        guard available >= 2, second.contains(window[index + 1]) else {
            throw available < 2 ? truncated() : malformed("invalid UTF-8")
        }
        for position in 2..<length {
            guard available > position else { throw truncated() }
            guard (0x80...0xBF).contains(window[index + position]) else { throw malformed("invalid UTF-8") }
        }
        advance(by: length)
    }

    /// `\` and the byte after it; after `\u`, four bytes that are not quotes (checked when decoded).
    private mutating func skipEscape() throws(HARImportError) {
        guard try ensure(2) >= 2 else {
            advance(by: 1)
            throw truncated()
        }
        let escaped = window[index + 1]
        advance(by: 2)
        guard escaped == UInt8(ascii: "u") else { return }
        guard try ensure(4) >= 4 else { throw truncated() }
        guard !window[index..<index + 4].contains(Self.quote) else { throw malformed("invalid hex encoded sequence") }
        advance(by: 4)
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(HARImportError) {
        let count = literal.utf8CodeUnitCount
        guard try ensure(count) >= count else { throw truncated() }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for (position, byte) in expected.enumerated() where window[index + position] != byte {
            advance(by: position)
            throw malformed("invalid value")
        }
        advance(by: count)
    }

    private mutating func skipNumber() throws(HARImportError) {
        advance()
        while true {
            while index < window.count {
                switch window[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"),
                     UInt8(ascii: "e"), UInt8(ascii: "E"):
                    index += 1
                default:
                    return
                }
            }
            guard try ensure(1) > 0 else { return }
        }
    }
}
