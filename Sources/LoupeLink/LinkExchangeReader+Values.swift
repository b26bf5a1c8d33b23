import Foundation
@_spi(JSON) import LoupeTrace

/// The containers and values ``LinkExchangeReader``'s records read, and the bookkeeping of their keys.
extension LinkExchangeReader.Reader {
    typealias NotSimple = LinkExchangeReader.NotSimple

    /// An object of the record `keys` names: `{`, then for each member its key's number in `keys` and the reader
    /// at its value, `}`. A key not in `keys` (`JSONDecoder` skips it) or one seen twice leaves the object to
    /// `JSONDecoder`.
    mutating func record(
        _ keys: LinkExchangeReader.Keys, _ member: (inout Self, Int) throws(NotSimple) -> Void
    ) throws(NotSimple) {
        var seen = LinkExchangeReader.Seen()
        try object { (reader: inout Self, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
            guard let number = keys.number(of: key) else { throw NotSimple() }
            try seen.first(number)
            try member(&reader, number)
        }
    }

    /// A string that must be one of `Value`'s raw values.
    mutating func raw<Value: RawRepresentable<String>>(_: Value.Type) throws(NotSimple) -> Value {
        guard let value = Value(rawValue: try string()) else { throw NotSimple() }
        return value
    }

    /// An object of strings (notes, attributes), keys read as strings (they may hold escapes); a key twice is
    /// `JSONDecoder`'s to read.
    mutating func strings() throws(NotSimple) -> [String: String] {
        var strings: [String: String] = [:]
        guard tokenizer.nextStrict().kind == .beginObject else { throw NotSimple() }
        let start = tokenizer.position
        if tokenizer.nextStrict().kind == .endObject { return strings }
        tokenizer.position = start
        while true {
            let key = try string()
            guard tokenizer.nextStrict().kind == .colon else { throw NotSimple() }
            guard strings.updateValue(try string(), forKey: key) == nil else { throw NotSimple() }
            let token = tokenizer.nextStrict()
            if token.kind == .endObject { return strings }
            guard token.kind == .comma else { throw NotSimple() }
        }
    }

    // MARK: Containers

    /// `{` then, for each member, `member` with the key's bytes (a key without escapes) to read its value; `}`.
    mutating func object(
        _ member: (inout Self, UnsafeBufferPointer<UInt8>) throws(NotSimple) -> Void
    ) throws(NotSimple) {
        guard tokenizer.nextStrict().kind == .beginObject else { throw NotSimple() }
        var token = tokenizer.nextStrict()
        if token.kind == .endObject { return }
        while true {
            guard token.kind == .string, token.isPlain, !token.isCut else { throw NotSimple() }
            let key = UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)])
            guard tokenizer.nextStrict().kind == .colon else { throw NotSimple() }
            try member(&self, key)
            token = tokenizer.nextStrict()
            if token.kind == .endObject { return }
            guard token.kind == .comma else { throw NotSimple() }
            token = tokenizer.nextStrict()
        }
    }

    /// `[` elements `]`, each read by `element`.
    mutating func array<Element>(
        _ element: (inout Self) throws(NotSimple) -> Element
    ) throws(NotSimple) -> [Element] {
        guard tokenizer.nextStrict().kind == .beginArray else { throw NotSimple() }
        var elements: [Element] = []
        let start = tokenizer.position
        if tokenizer.nextStrict().kind == .endArray { return elements }
        tokenizer.position = start
        while true {
            elements.append(try element(&self))
            let token = tokenizer.nextStrict()
            if token.kind == .endArray { return elements }
            guard token.kind == .comma else { throw NotSimple() }
        }
    }

    // MARK: Values

    /// A string: its bytes as they are when it holds no escape (the strict scan checked UTF-8 and control
    /// characters), the simple escapes decoded otherwise; a `\u` escape is left to `JSONDecoder`.
    mutating func string() throws(NotSimple) -> String {
        let token = tokenizer.nextStrict()
        guard token.kind == .string, !token.isCut else { throw NotSimple() }
        if token.isPlain {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)]),
                          as: UTF8.self)
        }
        var index = token.start
        guard let text = PlainJSONString.read(bytes, at: &index, validUTF8: true), index == token.end else {
            throw NotSimple()
        }
        return text
    }

    /// An integer written as digits (RFC 8259's form, no fraction or exponent) that fits an `Int`.
    mutating func integer() throws(NotSimple) -> Int {
        let token = tokenizer.nextStrict()
        guard token.kind == .number, token.isPlain, !token.isCut, tokenizer.numberVerdict(token) == .valid
        else { throw NotSimple() }
        var index = token.start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < token.end {
            let digit = Int(bytes[index] &- 0x30)
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = negative
                ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflowed, !overflowedAgain else { throw NotSimple() }
            value = sum
            index += 1
        }
        return value
    }

    /// A finite number of RFC 8259's grammar, read by the standard library's correctly rounded parser (as
    /// `JSONDecoder`'s is): the same `Double`.
    mutating func double() throws(NotSimple) -> Double {
        let token = tokenizer.nextStrict()
        guard token.kind == .number, !token.isCut, tokenizer.numberVerdict(token) == .valid else { throw NotSimple() }
        let text = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        if let value = Self.exactDouble(text) { return value }
        guard let value = Self.parsedDouble(text), value.isFinite else { throw NotSimple() }
        // A number too small for a normal `Double` (`1e-400`, a subnormal) is `JSONDecoder`'s to refuse or read.
        guard value == 0 ? Self.mantissaIsZero(text) : value.magnitude >= Double.leastNormalMagnitude else {
            throw NotSimple()
        }
        return value
    }

    /// A number of RFC 8259's grammar read by C's `strtod` from a NUL-terminated copy on the stack: what
    /// `Double(String)` does (the standard library calls `strtod_l` with the C locale), without making a `String`
    /// (a third of its cost for a date, whose 17 digits miss ``exactDouble(_:)``). Whatever locale the process set,
    /// the text is read whole or not at all: a locale whose decimal point is not `.` stops `strtod` at the point, and
    /// then `Double(String)` reads it.
    static func parsedDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard text.count < 64 else { return Double(String(decoding: text, as: UTF8.self)) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { copy -> Double? in
            guard let start = copy.baseAddress else { return nil }
            for index in 0..<text.count { copy[index] = CChar(bitPattern: text[index]) }
            copy[text.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            guard end == start + text.count else { return Double(String(decoding: text, as: UTF8.self)) }
            return value
        }
    }

    /// Powers of ten a `Double` holds exactly.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// A number written `-?digits(.digits)?` with at most 2⁵³ as its digits and at most 22 after the point, by
    /// one division of two `Double`s that are both exact: IEEE 754 rounds that quotient correctly, so it is
    /// the value a correctly rounded parser (the standard library's, `JSONDecoder`'s) reads, without making a
    /// `String` of the text. Dates as seconds since 1970 with up to six decimals are of this form; nil for the
    /// rest (an exponent, more digits), which the caller parses the general way.
    static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var decimals = -1  // digits after the point, once there is one
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                guard decimals < 0 else { return nil }
                decimals = 0
            } else {
                let digit = byte &- 0x30
                guard digit < 10 else { return nil }  // an exponent
                mantissa = mantissa &* 10 &+ UInt64(digit)
                guard mantissa <= 1 << 53 else { return nil }
                if decimals >= 0 { decimals += 1 }
            }
            index += 1
        }
        let places = max(0, decimals)
        guard places < exactPowersOfTen.count else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[places]
        return negative ? -value : value
    }

    /// Whether a number's digits before its exponent are all zeros (`-0.0e5`: a zero written, not an underflow).
    static func mantissaIsZero(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in text {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
            if byte > UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { return false }
        }
        return true
    }

    /// Bytes in base64: `JSONDecoder`'s default for `Data`, read by the same initializer.
    mutating func data() throws(NotSimple) -> Data {
        guard let data = Data(base64Encoded: try string()) else { throw NotSimple() }
        return data
    }

    /// Seconds since 1970, as the link's `JSONDecoder` reads dates.
    mutating func date() throws(NotSimple) -> Date {
        Date(timeIntervalSince1970: try double())
    }

    mutating func bool() throws(NotSimple) -> Bool {
        let token = tokenizer.nextStrict()
        guard token.kind == .literal, !token.isCut else { throw NotSimple() }
        switch bytes[token.start] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw NotSimple()  // null
        }
    }

    /// An id in the canonical `8-4-4-4-12` form (either case), which `UUID(uuidString:)` reads alike.
    mutating func uuid() throws(NotSimple) -> UUID {
        let token = tokenizer.nextStrict()
        guard token.kind == .string, token.isPlain, !token.isCut,
              let id = StoredUUID.parse(UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)]))
        else { throw NotSimple() }
        return id
    }
}

extension LinkExchangeReader {
    /// The keys of one record, numbered in order: a key is found by its length first, then its bytes.
    struct Keys: Sendable {
        private let names: [StaticString]
        /// The numbers of the keys of each length: a key is compared only with names as long as it is.
        private let byLength: [[Int]]

        init(_ names: StaticString...) {
            precondition(names.count <= 32, "Seen has 32 bits")
            self.names = names
            var byLength = Array(repeating: [Int](), count: (names.map(\.utf8CodeUnitCount).max() ?? 0) + 1)
            for (number, name) in names.enumerated() { byLength[name.utf8CodeUnitCount].append(number) }
            self.byLength = byLength
        }

        /// The number of `key` (its bytes, without quotes), or nil when the record has no such key.
        func number(of key: UnsafeBufferPointer<UInt8>) -> Int? {
            guard key.count < byLength.count, let start = key.baseAddress else { return nil }
            for number in byLength[key.count] where memcmp(start, names[number].utf8Start, key.count) == 0 {
                return number
            }
            return nil
        }
    }

    /// The keys of one object read so far, one bit each.
    struct Seen {
        private var bits: UInt32 = 0

        /// Marks key `bit` as seen; a second time leaves the object to `JSONDecoder`.
        mutating func first(_ bit: Int) throws(NotSimple) {
            let mask = UInt32(1) << bit
            guard bits & mask == 0 else { throw NotSimple() }
            bits |= mask
        }
    }
}
