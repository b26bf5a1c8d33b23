import Foundation

/// Reads the JSON columns of a store (header lists, attempt notes, event attributes) as `JSONDecoder` does, quickly
/// when they have the shape Loupe writes: `[{"name":"…","value":"…"},…]` or `{"key":"value",…}` with strings
/// holding no `\u` escape. Anything else (another shape, a `\u` escape, a duplicate key, a hand-edited row) goes
/// to `JSONDecoder`, so results and errors are always the decoder's; a decoder per value was a good part of what
/// reading many rows cost.
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

    private static func fast<T>(_ text: String, _ read: (inout Scanner) -> T?) -> T? {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            guard let value = read(&scanner) else { return nil }
            scanner.skipWhitespace()
            return scanner.isAtEnd ? value : nil
        }
    }

    /// Thrown inside the fast path when the text is not of the simple shape; never escapes ``StoredJSON``.
    private struct NotSimple: Error {}

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) throws(NotSimple) {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { throw NotSimple() }
            index += 1
        }

        mutating func peek(_ byte: UInt8) -> Bool {
            skipWhitespace()
            return index < bytes.count && bytes[index] == byte
        }

        /// `[` members `]` (no trailing comma), each read by `member`.
        mutating func list(_ open: UInt8, _ close: UInt8, _ member: (inout Scanner) throws(NotSimple) -> Void)
            throws(NotSimple) {
            try take(open)
            if peek(close) {
                index += 1
                return
            }
            repeat {
                try member(&self)
            } while (try? take(UInt8(ascii: ","))) != nil
            try take(close)
        }

        mutating func headers() throws(NotSimple) -> [TraceHeader] {
            var headers: [TraceHeader] = []
            try list(UInt8(ascii: "["), UInt8(ascii: "]")) { (scanner: inout Scanner) throws(NotSimple) in
                var name: String?
                var value: String?
                try scanner.list(UInt8(ascii: "{"), UInt8(ascii: "}")) { (scanner: inout Scanner) throws(NotSimple) in
                    let key = try scanner.string()
                    try scanner.take(UInt8(ascii: ":"))
                    let text = try scanner.string()
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
            try list(UInt8(ascii: "{"), UInt8(ascii: "}")) { (scanner: inout Scanner) throws(NotSimple) in
                let key = try scanner.string()
                try scanner.take(UInt8(ascii: ":"))
                let value = try scanner.string()
                guard strings.updateValue(value, forKey: key) == nil else { throw NotSimple() }
            }
            return strings
        }

        /// A string without `\u` escapes or raw control characters.
        mutating func string() throws(NotSimple) -> String {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                  let text = PlainJSONString.read(bytes, at: &index, validUTF8: true) else { throw NotSimple() }
            return text
        }
    }
}
