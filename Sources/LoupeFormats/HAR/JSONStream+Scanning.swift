import Foundation
@_spi(JSON) import LoupeTrace

/// Skipping over JSON values by the rules of Foundation's `JSONDecoder` scanner, on the tokenizer's pieces
/// (``JSONTokenizer``) applied to the window, which checks structure but leaves
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
            let from = index
            index = window.withUnsafeBufferPointer { JSONTokenizer.skipWhitespace($0, from: from) }
            if index < window.count { return window[index] }
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
    /// not one it wants (a raw control character, an escape JSON does not have, malformed UTF-8: no overlong forms,
    /// no surrogates, nothing past U+10FFFF). Skipped objects and values are not checked, as it never reads them.
    mutating func skipString(validatingUTF8: Bool = false) throws(HARImportError) {
        advance()
        while true {
            let from = index
            let scan = window.withUnsafeBufferPointer {
                JSONTokenizer.scanString($0, from: from, validatingUTF8: validatingUTF8)
            }
            index = scan.index
            switch scan.stop {
            case .closed:
                return
            case .cut:
                // The window ends inside the string, an escape or a UTF-8 sequence: read on from there.
                let held = window.count - index
                guard try ensure(held + 1) > held else { throw truncated() }
            case .badUnicodeEscape:
                // As JSONDecoder: a text that ends before the four bytes is truncated, else malformed.
                guard try ensure(4) >= 4 else { throw truncated() }
                throw malformed("invalid hex encoded sequence")
            case .control:
                // As JSONDecoder refuses one in a key it reads (values it skips are not looked at).
                throw malformed("unescaped control character")
            case .invalidUTF8:
                throw malformed("invalid UTF-8")
            case .unknownEscape:
                // As JSONDecoder, in a key it reads (`"ve\sion"` was found passing by the mutated-HAR test).
                throw malformed("invalid escape sequence")
            }
        }
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(HARImportError) {
        let count = literal.utf8CodeUnitCount
        guard try ensure(count) >= count else { throw truncated() }
        let from = index
        let token = window.withUnsafeBufferPointer {
            var tokens = JSONTokenizer($0, from: from)
            return tokens.next()
        }
        guard token.kind == .literal else {
            advance(by: token.end - from)
            throw malformed("invalid value")
        }
        advance(by: count)
    }

    private mutating func skipNumber() throws(HARImportError) {
        advance()
        while true {
            let from = index
            index = window.withUnsafeBufferPointer { JSONTokenizer.numberEnd($0, from: from) }
            guard index == window.count, try ensure(1) > 0 else { return }
        }
    }
}
