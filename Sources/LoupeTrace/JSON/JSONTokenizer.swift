/// The one JSON tokenizer: bytes in, tokens with byte offsets out.
///
/// Loupe reads JSON four ways (the HAR reader's ``JSONStream``, the recorder's field redaction, the detail view's
/// layout, the diff's parser), and none can use Foundation's decoder for the one reason they share: it changes
/// numbers and key order and refuses a body cut short. This tokenizer is that shared part, and each user keeps
/// only its own small consumer on top (its grammar, what it builds):
///
/// - tokens are offsets into the bytes, never copies: a number is its text as written, a string its quoted bytes;
/// - it never fails and never recurses: a byte that starts no token is an ``JSONToken/Kind/invalid`` token of its
///   own, nesting is the consumer's (a stack of its own, or a depth count), and a token the text ends inside is
///   returned with ``JSONToken/isCut`` set, so a body cut at a cap reads as far as it goes;
/// - strings are scanned eight bytes a step (``JSONByteScan``), the pieces below are `@inlinable` so the consumers
///   in other modules inline them into their loops, and nothing allocates. The hot path is `@inline(always)`
///   (Swift 6.3, SE-0496), not `@inline(__always)`: the optimizer drops the latter when both the caller and the
///   callee pass 64 blocks, which left the detail view's layout calling `next()` per token; older
///   compilers, which do not parse the new spelling, get the old one.
///
/// Lexical rules, which every consumer shares: whitespace is space, tab, CR and LF; a string ends at the first
/// unescaped quote, `\` escapes the byte after it and `\u` needs four more bytes that are not quotes; a number is
/// a `-` or digit and every following digit, `.`, `+`, `-`, `e` or `E` (``numberVerdict(_:)`` checks RFC 8259's
/// grammar for the consumers that want it); `true`, `false` and `null` are literals.
@_spi(JSON) public struct JSONTokenizer {
    /// The text.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    public var position: Int

    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, from position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    /// The next token after whitespace; ``JSONToken/Kind/end`` (empty, at `bytes.count`) when there is none.
    ///
    /// Always inlined, with the rare cases (a `\u` escape, a literal cut or misspelt, the grammar of a number
    /// that is not an integer) out of line: each consumer's loop then compares bytes in place, as the hand-written
    /// scanners it replaced did, instead of calling a function and returning a token through memory per token.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    public mutating func next() -> JSONToken { token(strict: false) }

    /// ``next()`` with strings read as RFC 8259 has them, for a reader that refuses what it does not (the diff's
    /// parser): a string holding a raw control character, malformed UTF-8 (Unicode's table 3-7) or a `\u` whose
    /// four bytes hold a quote is an ``JSONToken/Kind/invalid`` token from its opening quote to the byte at fault,
    /// so a string is read once, not once here and once again to check it.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    public mutating func nextStrict() -> JSONToken { token(strict: true) }

    /// The next string token, every token before it skipped, or ``JSONToken/Kind/end``: for a consumer that only
    /// wants strings (the field redactor's keys). No other token holds a quote (a number or a literal stops at
    /// one, an invalid token is one byte or a misspelt literal's letters), so this is the next `"`, found eight
    /// bytes a step, read as ``next()`` reads a string.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    public mutating func nextString() -> JSONToken {
        let quote = JSONByteScan.firstQuote(in: bytes, from: position, orBackslash: false)
        guard quote < bytes.count else {
            position = bytes.count
            return JSONToken(.end, bytes.count, bytes.count)
        }
        return string(at: quote, strict: false)
    }

    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    mutating func token(strict: Bool) -> JSONToken {
        let count = bytes.count
        var index = position
        while index < count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { break }
            index += 1
        }
        guard index < count else {
            position = count
            return JSONToken(.end, count, count)
        }
        let start = index
        let kind: JSONToken.Kind
        switch bytes[start] {
        case 0x22: return string(at: start, strict: strict)
        case 0x2D, 0x30...0x39: return number(at: start)
        case 0x7B: kind = .beginObject
        case 0x7D: kind = .endObject
        case 0x5B: kind = .beginArray
        case 0x5D: kind = .endArray
        case 0x2C: kind = .comma
        case 0x3A: kind = .colon
        case 0x74, 0x66, 0x6E: return literal(at: start)
        default: kind = .invalid
        }
        position = start + 1
        return JSONToken(kind, start, start + 1)
    }

    /// The string whose opening quote is at `start`.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    mutating func string(at start: Int, strict: Bool) -> JSONToken {
        // Not strict, a `\u` holding a quote ends at that quote, as `\` and one byte would (the redactor and the
        // layout always read it so); strict, it is an invalid token.
        let scan = Self.scan(bytes, from: start + 1, validatingUTF8: strict, resumingBadEscape: !strict)
        switch scan.stop {
        case .closed:
            position = scan.index
            return JSONToken(.string, start, scan.index, plain: !scan.escaped)
        case .cut:
            position = bytes.count
            return JSONToken(.string, start, bytes.count, cut: true)
        case .badUnicodeEscape, .unknownEscape, .control, .invalidUTF8:
            let end = max(scan.index, start + 1)
            position = end
            return JSONToken(.invalid, start, end)
        }
    }

    /// The number at `start` (a `-` or a digit): digits in a tight loop, and only when another number byte
    /// follows them the lax rest (``numberEnd(_:from:)``); a token of digits alone is marked plain, so that
    /// `numberVerdict(_:)` needs no second look at it.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    mutating func number(at start: Int) -> JSONToken {
        let count = bytes.count
        var index = start + 1
        while index < count, bytes[index] &- 0x30 < 10 { index += 1 }
        var plain = true
        if index < count {
            switch bytes[index] {
            case 0x2E, 0x2B, 0x2D, 0x65, 0x45:
                plain = false
                index = Self.numberEnd(bytes, from: index + 1)
            default: break
            }
        }
        position = index
        return JSONToken(.number, start, index, cut: index == count, plain: plain)
    }

    /// `true`, `false` or `null` at `start`: whole words compared as one four-byte load; the rest (a literal cut
    /// or misspelt) out of line.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    mutating func literal(at start: Int) -> JSONToken {
        if start + 4 <= bytes.count, let base = bytes.baseAddress {
            let word = UInt32(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt32.self))
            if word == 0x6575_7274 || word == 0x6C6C_756E {  // "true", "null"
                position = start + 4
                return JSONToken(.literal, start, start + 4)
            }
            if word == 0x736C_6166, start + 5 <= bytes.count, bytes[start + 4] == 0x65 {  // "fals" "e"
                position = start + 5
                return JSONToken(.literal, start, start + 5)
            }
        }
        return otherLiteral(at: start)
    }

    /// A literal cut or misspelt at `start`: a ``JSONToken/Kind/literal`` cut when the text ends inside it, or an
    /// ``JSONToken/Kind/invalid`` token ending at the first byte that differs.
    @usableFromInline @inline(never)
    mutating func otherLiteral(at start: Int) -> JSONToken {
        let word: StaticString = switch bytes[start] {
        case 0x74: "true"
        case 0x66: "false"
        default: "null"
        }
        let length = word.utf8CodeUnitCount
        let expected = word.utf8Start
        var index = start + 1
        while index < start + length {
            guard index < bytes.count else {
                position = index
                return JSONToken(.literal, start, index, cut: true)
            }
            guard bytes[index] == expected[index - start] else {
                position = index
                return JSONToken(.invalid, start, index)
            }
            index += 1
        }
        position = index
        return JSONToken(.literal, start, index)
    }

    /// `numberVerdict(_:)` of a number token this tokenizer returned: one of digits alone
    /// (``JSONToken/isPlain``) is judged from its first two bytes, the rest by the grammar's state machine.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    public func numberVerdict(_ token: JSONToken) -> NumberVerdict {
        if token.isPlain {
            let first = bytes[token.start]
            let length = token.end - token.start
            if first == 0x2D {
                if length == 1 { return .prefix }
                if length == 2 || bytes[token.start + 1] != 0x30 { return .valid }
            } else if first != 0x30 || length == 1 {
                return .valid
            }
        }
        return Self.classifyNumber(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
    }

    // MARK: Pieces, for consumers that read a window of a longer text (``JSONStream``) or bytes on their own terms

    /// The offset of the first byte at or after `start` that is not whitespace (`bytes.count` if none).
    @inlinable
    public static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return index }
            index += 1
        }
        return index
    }

    /// Where a number's bytes end: the first byte from `start` on that is not a digit, `.`, `+`, `-`, `e` or `E`.
    @inlinable
    public static func numberEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = bytes.count
        while index < count {
            switch bytes[index] {
            case 0x30...0x39, 0x2E, 0x2B, 0x2D, 0x65, 0x45: index += 1
            default: return index
            }
        }
        return index
    }

    /// Why ``scanString(_:from:validatingUTF8:)`` stopped.
    public enum StringStop: Sendable, Equatable {
        /// At the closing quote: the index is just past it.
        case closed
        /// The text ends inside the string: the index is where reading can resume once there are more bytes (the
        /// end, or the start of an escape or UTF-8 sequence it cuts).
        case cut
        /// A `\u` whose four bytes hold a quote: the index is just after the `u`.
        case badUnicodeEscape
        /// (Only when validating.) A raw control character, at the index.
        case control
        /// (Only when validating.) A malformed UTF-8 sequence (Unicode's table 3-7), whose first byte is at the index.
        case invalidUTF8
        /// (Only when validating.) A backslash before a byte that starts none of JSON's escapes (`\s`), at the
        /// index of the backslash.
        case unknownEscape
    }

    /// Reads a string's contents from `start` (just past its opening quote, or where an earlier call stopped
    /// `.cut`) to its closing quote. `validatingUTF8` stops at raw control characters, malformed UTF-8 and escapes
    /// JSON does not have too.
    @inlinable
    public static func scanString(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, validatingUTF8: Bool = false
    ) -> (index: Int, stop: StringStop) {
        let scan = Self.scan(bytes, from: start, validatingUTF8: validatingUTF8, resumingBadEscape: false)
        return (scan.index, scan.stop)
    }

    /// ``scanString(_:from:validatingUTF8:)``'s loop, the one set of string rules: `resumingBadEscape` reads on
    /// after a `\u` whose four bytes hold a quote (from just after the `u`, so that quote ends the string) instead
    /// of stopping there; `escaped` says whether the string held a backslash.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    @inlinable
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, validatingUTF8: Bool, resumingBadEscape: Bool
    ) -> (index: Int, stop: StringStop, escaped: Bool) {
        let count = bytes.count
        var index = start
        var escaped = false
        while true {
            index = validatingUTF8
                ? JSONByteScan.firstStop(in: bytes, from: index, orNonASCII: true)
                : JSONByteScan.firstQuote(in: bytes, from: index, orBackslash: true)
            guard index < count else { return (count, .cut, escaped) }
            let byte = bytes[index]
            if byte == 0x22 { return (index + 1, .closed, escaped) }
            if byte == 0x5C {
                escaped = true
                guard index + 1 < count else { return (index, .cut, true) }
                guard bytes[index + 1] == 0x75 else {  // u
                    if validatingUTF8, !Self.isEscapeLetter(bytes[index + 1]) { return (index, .unknownEscape, true) }
                    index += 2
                    continue
                }
                // Four bytes that are not quotes (a quote among fewer, at the end, is found as well).
                let hex = index + 2
                let available = min(count, hex + 4)
                var probe = hex
                while probe < available, bytes[probe] != 0x22 { probe += 1 }
                if probe < available {
                    guard resumingBadEscape else { return (hex, .badUnicodeEscape, true) }
                    index = hex
                    continue
                }
                guard available == hex + 4 else { return (index, .cut, true) }
                index += 6
            } else if byte < 0x20 {
                // Only stopped at when validating.
                return (index, .control, escaped)
            } else {
                // ≥ 0x80, only stopped at when validating.
                let length = sequenceLength(bytes, at: index)
                if length > 0 {
                    index += length
                } else {
                    return (index, length == 0 ? .invalidUTF8 : .cut, escaped)
                }
            }
        }
    }

    /// `"`, `\\`, `/`, `b`, `f`, `n`, `r`, `t`: what may follow a backslash, apart from `u` (read on its own).
    @inlinable
    static func isEscapeLetter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: true
        default: false
        }
    }

    /// ``UTF8Validation/sequenceLength(_:at:)``, reachable from the inlined loop (which may only call what is
    /// public or `@usableFromInline`).
    @usableFromInline
    static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        UTF8Validation.sequenceLength(bytes, at: index)
    }

    /// Whether a number token's bytes (``numberEnd(_:from:)``'s lax run) follow RFC 8259's grammar,
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, or are a beginning of one (a body cut short).
    @inlinable
    public static func numberVerdict(_ token: UnsafeBufferPointer<UInt8>) -> NumberVerdict {
        // Most numbers are plain integers: digits without a leading zero, checked without the state machine.
        guard let first = token.first else { return .prefix }
        if first != 0x30 || token.count == 1 {
            var index = first == 0x2D ? 1 : 0
            if index < token.count, token[index] != 0x30 {
                while index < token.count, token[index] >= 0x30, token[index] <= 0x39 { index += 1 }
                if index == token.count { return first == 0x2D && token.count == 1 ? .prefix : .valid }
            }
        }
        return classifyNumber(token)
    }

    /// RFC 8259's number grammar as a state machine over the bytes of one token.
    @usableFromInline @inline(never)
    static func classifyNumber(_ token: UnsafeBufferPointer<UInt8>) -> NumberVerdict {
        var state = NumberState.start
        for byte in token {
            let digit = byte >= 0x30 && byte <= 0x39
            let isExponent = byte == 0x65 || byte == 0x45
            switch state {
            case .start where byte == 0x2D: state = .minus
            case .start where byte == 0x30, .minus where byte == 0x30: state = .zero
            case .start where digit, .minus where digit, .integer where digit: state = .integer
            case .zero where byte == 0x2E, .integer where byte == 0x2E: state = .dot
            case .dot where digit, .fraction where digit: state = .fraction
            case .zero where isExponent, .integer where isExponent, .fraction where isExponent: state = .exponent
            case .exponent where byte == 0x2B || byte == 0x2D: state = .exponentSign
            case .exponent where digit, .exponentSign where digit, .exponentDigits where digit: state = .exponentDigits
            default: return .invalid
            }
        }
        switch state {
        case .zero, .integer, .fraction, .exponentDigits: return .valid
        case .start, .minus, .dot, .exponent, .exponentSign: return .prefix
        }
    }

    private enum NumberState { case start, minus, zero, integer, dot, fraction, exponent, exponentSign, exponentDigits }

    /// What ``numberVerdict(_:)`` found.
    public enum NumberVerdict: Sendable, Equatable {
        /// A whole number.
        case valid
        /// Not a number yet, but more bytes could make it one (`-`, `1.`, `2e+`): a body cut short.
        case prefix
        case invalid
    }
}

/// One token: its kind and where its bytes are (`start..<end` of the tokenizer's bytes).
@_spi(JSON) public struct JSONToken: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case beginObject, endObject, beginArray, endArray, comma, colon
        /// Quotes included.
        case string
        /// As written (lax: see ``JSONTokenizer/numberVerdict(_:)``).
        case number
        /// `true`, `false` or `null`.
        case literal
        /// A byte that starts no token, or a literal misspelt (up to the first wrong byte).
        case invalid
        /// No more tokens.
        case end
    }

    public var kind: Kind
    public var start: Int
    public var end: Int
    /// The text ends inside this token: a string with no closing quote, a literal's beginning, a number that may
    /// go on.
    public var isCut: Bool
    /// A string without a backslash (its contents are its bytes), or a number of digits alone after its first
    /// byte (no fraction, no exponent): what lets a consumer skip a second look at it.
    public var isPlain: Bool

    @inlinable
    public init(_ kind: Kind, _ start: Int, _ end: Int, cut: Bool = false, plain: Bool = false) {
        self.kind = kind
        self.start = start
        self.end = end
        isCut = cut
        isPlain = plain
    }
}
