import Foundation

/// The one reader of a store's JSON columns (header lists, attempt notes, event attributes), on the one tokenizer's
/// rules (``JSONTokenizer``: its whitespace, its string scan), read as `JSONDecoder` does and quickly when they have
/// the shape Loupe writes:
/// `[{"name":"…","value":"…"},…]` or `{"key":"value",…}` with strings holding no `\u` escape. Anything else
/// (another shape, a `\u` escape, a duplicate key, a hand-edited row) goes to `JSONDecoder`, so results and errors
/// are always the decoder's; a decoder per value was a good part of what reading many rows cost.
///
/// A header list in the exact form the writer makes is also walked in place, without a `String` per name and
/// value (``isExactHeaderList(_:)``, ``forEachExactHeader(_:_:)``, behind ``StoredHeaderText``): what an export
/// copies into a HAR as it is.
package enum StoredJSON {
    /// A header list (`NULL` reads as none); throws what `JSONDecoder` throws for one it cannot read.
    package static func headers(_ text: String?) throws -> [TraceHeader] {
        guard let text else { return [] }
        if let headers = fast(text, { try? $0.headers() }) { return headers }
        return try JSONDecoder().decode([TraceHeader].self, from: Data(text.utf8))
    }

    /// Attempt notes: none for `NULL` or anything that is not an object of strings.
    package static func notes(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        if let notes = fast(text, { try? $0.strings() }) { return notes }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// Event attributes (`NULL` reads as none); throws what `JSONDecoder` throws for text it cannot read.
    package static func attributes(_ text: String?) throws -> [String: String] {
        guard let text else { return [:] }
        if let attributes = fast(text, { try? $0.strings() }) { return attributes }
        return try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }

    private static func fast<T>(_ text: String, _ read: (inout Reader) -> T?) -> T? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(tokens: JSONTokenizer(bytes))
            guard let value = read(&reader), reader.tokens.next().kind == .end else { return nil }
            return value
        }
    }

    /// Thrown inside the readers when the text is not of the expected shape; never escapes ``StoredJSON``.
    struct NotSimple: Error {}

    /// Tokens in, the columns' two shapes out; and the exact form of a header list (``exactHeaders(_:)``).
    struct Reader {
        var tokens: JSONTokenizer
        /// The text was read in the exact form before: its strings are not checked again.
        var known = false

        var bytes: UnsafeBufferPointer<UInt8> { tokens.bytes }

        /// The one-byte token `byte` (`[`, `{`, `:`, `]`, `}`), after whitespace as the tokenizer skips it.
        mutating func take(_ byte: UInt8) throws(NotSimple) {
            guard takeIf(byte) else { throw NotSimple() }
        }

        /// Whether the next token is the one-byte token `byte`, taken if so. Looked at, not tokenized: a string
        /// there would be scanned twice, and these are the only tokens the two shapes have besides strings.
        mutating func takeIf(_ byte: UInt8) -> Bool {
            let index = JSONTokenizer.skipWhitespace(bytes, from: tokens.position)
            guard index < bytes.count, bytes[index] == byte else { return false }
            tokens.position = index + 1
            return true
        }

        /// `open` members `close` (no trailing comma), each read by `member`.
        mutating func list(_ open: UInt8, _ close: UInt8,
                           _ member: (inout Reader) throws(NotSimple) -> Void) throws(NotSimple) {
            try take(open)
            if takeIf(close) { return }
            repeat {
                try member(&self)
            } while takeIf(UInt8(ascii: ","))
            try take(close)
        }

        mutating func headers() throws(NotSimple) -> [TraceHeader] {
            var headers: [TraceHeader] = []
            try list(UInt8(ascii: "["), UInt8(ascii: "]")) { (reader: inout Reader) throws(NotSimple) in
                var name: String?
                var value: String?
                try reader.list(UInt8(ascii: "{"), UInt8(ascii: "}")) { (reader: inout Reader) throws(NotSimple) in
                    let key = try reader.string()
                    try reader.take(UInt8(ascii: ":"))
                    let text = try reader.string()
                    switch key {
                    case "name" where name == nil: name = text
                    case "value" where value == nil: value = text
                    default: throw NotSimple()
                    }
                }
                guard let name, let value else { throw NotSimple() }
                headers.append(TraceHeader(name: name, value: value))
            }
            return headers
        }

        mutating func strings() throws(NotSimple) -> [String: String] {
            var strings: [String: String] = [:]
            try list(UInt8(ascii: "{"), UInt8(ascii: "}")) { (reader: inout Reader) throws(NotSimple) in
                let key = try reader.string()
                try reader.take(UInt8(ascii: ":"))
                let value = try reader.string()
                guard strings.updateValue(value, forKey: key) == nil else { throw NotSimple() }
            }
            return strings
        }

        /// A string without `\u` escapes or raw control characters, read and unescaped in one pass from its opening
        /// quote (the bytes are a Swift `String`'s, so valid UTF-8).
        mutating func string() throws(NotSimple) -> String {
            var index = JSONTokenizer.skipWhitespace(bytes, from: tokens.position)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                  let text = PlainJSONString.read(bytes, at: &index, validUTF8: true) else { throw NotSimple() }
            tokens.position = index
            return text
        }

        // MARK: The exact form

        private static let namePrefix: StaticString = #"{"name":""#
        private static let valuePrefix: StaticString = #"","value":""#
        private static let itemEnd: StaticString = #""}"#

        /// `[{"name":"…","value":"…"},…]` as the writer makes it, calling `body` with each name and value still
        /// escaped (between their quotes). The punctuation is the writer's own bytes, compared as such; the strings
        /// are read by the tokenizer's string scan.
        mutating func exactHeaders(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) throws(NotSimple) {
            var index = tokens.position
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw NotSimple() }
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                tokens.position = index + 1
                return
            }
            while true {
                try skip(Self.namePrefix, at: &index)
                let name = try escapedString(at: &index)
                try skip(Self.valuePrefix, at: &index)
                let value = try escapedString(at: &index)
                try skip(Self.itemEnd, at: &index)
                body(name, value)
                guard index < bytes.count else { throw NotSimple() }
                if bytes[index] == UInt8(ascii: "]") { break }
                guard bytes[index] == UInt8(ascii: ",") else { throw NotSimple() }
                index += 1
            }
            tokens.position = index + 1
        }

        private func skip(_ expected: StaticString, at index: inout Int) throws(NotSimple) {
            let count = expected.utf8CodeUnitCount
            guard index + count <= bytes.count,
                  memcmp(bytes.baseAddress! + index, expected.utf8Start, count) == 0 else { throw NotSimple() }
            index += count
        }

        /// The string from `index` to its closing quote (left just past it, at the quote the prefixes end with),
        /// escaped by the encoder's rules: `"`, `\` and control characters escaped, `\b \t \n \f \r` or else
        /// `\u00xx` in lower case, nothing else (the rules a HAR export writes strings with, so it can copy these
        /// bytes). A text read before (`known`) is not checked again.
        private func escapedString(at index: inout Int) throws(NotSimple) -> UnsafeBufferPointer<UInt8> {
            let start = index
            let scan = JSONTokenizer.scan(bytes, from: start, validatingUTF8: !known, resumingBadEscape: false)
            guard scan.stop == .closed else { throw NotSimple() }
            let contents = UnsafeBufferPointer(rebasing: bytes[start..<(scan.index - 1)])
            guard known || !scan.escaped || Self.hasEncoderEscapes(contents) else { throw NotSimple() }
            index = scan.index - 1
            return contents
        }

        /// Whether every escape in `contents` (a string the tokenizer read strictly) is one the encoder writes.
        private static func hasEncoderEscapes(_ contents: UnsafeBufferPointer<UInt8>) -> Bool {
            var index = 0
            while index < contents.count {
                guard contents[index] == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                switch contents[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "t"), UInt8(ascii: "n"),
                     UInt8(ascii: "f"), UInt8(ascii: "r"):
                    index += 2
                case UInt8(ascii: "u"):
                    // `\u00xx` for the control characters without a short escape, lower-case hex.
                    guard index + 5 < contents.count, contents[index + 2] == UInt8(ascii: "0"),
                          contents[index + 3] == UInt8(ascii: "0"),
                          contents[index + 4] == UInt8(ascii: "0") || contents[index + 4] == UInt8(ascii: "1"),
                          let low = ASCIIBytes.hexValue(contents[index + 5]),
                          !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains(contents[index + 5]) else { return false }
                    let value = (contents[index + 4] - UInt8(ascii: "0")) << 4 | low
                    guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(value) else { return false }
                    index += 6
                default:
                    return false
                }
            }
            return true
        }
    }

    /// Whether `text` is a header list in the exact form the writer makes (``StoredHeaderText``).
    package static func isExactHeaderList(_ text: String) -> Bool {
        readExactHeaders(text, known: false) { _, _ in }
    }

    /// Calls `body` with each header's name and value, still escaped, in order, for a text
    /// ``isExactHeaderList(_:)`` accepted.
    package static func forEachExactHeader(_ text: String,
                                           _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        _ = readExactHeaders(text, known: true, body)
    }

    private static func readExactHeaders(_ text: String, known: Bool,
                                         _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(tokens: JSONTokenizer(bytes), known: known)
            do throws(NotSimple) {
                try reader.exactHeaders(body)
            } catch {
                return false
            }
            return reader.tokens.position == bytes.count
        }
    }
}
