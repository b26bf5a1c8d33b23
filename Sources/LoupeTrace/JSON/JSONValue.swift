/// A JSON document as Loupe's readers build it (``JSONParser``): object keys keep their order and numbers keep
/// their text. The replay diff, the cassettes' body matcher and HAR import read it.
///
/// Equality is semantic: objects compare without regard to key order, numbers by decimal value (`1.0 == 1`,
/// `1e2 == 100`), never through `Double`, so `0.1` and `0.10000000000000001` or two 20-digit ids stay apart.
///
/// Not `indirect`: arrays and objects already hold their members on the heap, and a box per value (a string, a
/// number) was an allocation per value of every document read.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value as compact JSON (numbers as written), cut to `limit` characters with `…` when longer.
    package func compactText(limit: Int = .max) -> String {
        var writer = CompactWriter(limit: limit)
        writer.write(self)
        return writer.finished
    }
}

/// A JSON object: its keys in document order (a repeated key keeps its first place and its last value).
package struct JSONObject: Sendable, Equatable {
    package private(set) var keys: [String] = []
    package private(set) var values: [String: JSONValue] = [:]

    package init() {}

    package init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { add(key, value) }
    }

    /// Sets `key` to `value` (a repeated key keeps its first place), with one hash of the key; returns whether
    /// the key was new, which a reader that refuses repeated keys checks.
    @discardableResult
    package mutating func add(_ key: String, _ value: JSONValue) -> Bool {
        guard values.updateValue(value, forKey: key) == nil else { return false }
        keys.append(key)
        return true
    }

    package subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if values[key] == nil, newValue != nil { keys.append(key) }
            if newValue == nil { keys.removeAll { $0 == key } }
            values[key] = newValue
        }
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.values == rhs.values }
}

/// A JSON number: the text as written, compared by its decimal value.
///
/// The decimal value is worked out when two numbers are compared, not when one is read: most numbers a reader
/// builds (HAR import's, a diff's equal ones) are never compared with a different text.
package struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// The number exactly as the document wrote it.
    package let text: String

    /// `text` must be a JSON number (the parser checks the grammar).
    package init(_ text: String) {
        self.text = text
    }

    package var description: String { text }

    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.text == rhs.text || DecimalKey(lhs.text) == DecimalKey(rhs.text)
    }
}

/// A decimal value as sign, significant digits and exponent: `-12.50e1` is (negative, "125", 0).
///
/// Exponents beyond ±10^15 cannot be normalised without overflow; such a number compares by its text.
private struct DecimalKey: Equatable {
    var negative = false
    var digits = ""
    var exponent = 0
    var literal: String?

    init(_ text: String) {
        let scalars = Array(text.utf8)
        var index = 0
        if index < scalars.count, scalars[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var significand: [UInt8] = []
        var fractionLength = 0
        var inFraction = false
        while index < scalars.count, scalars[index] != UInt8(ascii: "e"), scalars[index] != UInt8(ascii: "E") {
            if scalars[index] == UInt8(ascii: ".") { inFraction = true } else {
                significand.append(scalars[index])
                if inFraction { fractionLength += 1 }
            }
            index += 1
        }
        var written = 0
        if index < scalars.count {
            var exponentDigits = scalars[(index + 1)...]
            let sign = exponentDigits.first == UInt8(ascii: "-") ? -1 : 1
            if let first = exponentDigits.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                exponentDigits = exponentDigits.dropFirst()
            }
            let magnitude = exponentDigits.drop { $0 == UInt8(ascii: "0") }
            guard magnitude.count <= 15 else {
                literal = text.lowercased()
                return
            }
            written = sign * (Int(String(decoding: magnitude, as: UTF8.self)) ?? 0)
        }
        // Leading zeros carry no value; trailing zeros move into the exponent.
        let leading = significand.prefix { $0 == UInt8(ascii: "0") }.count
        significand.removeFirst(leading)
        let trailing = significand.reversed().prefix { $0 == UInt8(ascii: "0") }.count
        significand.removeLast(trailing)
        guard !significand.isEmpty else {
            negative = false  // -0 == 0
            return
        }
        digits = String(decoding: significand, as: UTF8.self)
        exponent = written - fractionLength + trailing
    }
}

/// Writes compact JSON, stopping once `limit` characters are reached.
private struct CompactWriter {
    let limit: Int
    var text = ""
    var full = false

    init(limit: Int) { self.limit = max(1, limit) }

    var finished: String { full ? String(text.prefix(limit - 1)) + "…" : text }

    mutating func append(_ piece: String) {
        guard !full else { return }
        text += piece
        if text.count > limit { full = true }
    }

    mutating func write(_ value: JSONValue) {
        guard !full else { return }
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number): append(number.text)
        case .string(let string): append(JSONValue.quoted(string))
        case .array(let elements):
            append("[")
            for (offset, element) in elements.enumerated() {
                if offset > 0 { append(",") }
                write(element)
            }
            append("]")
        case .object(let object):
            append("{")
            for (offset, key) in object.keys.enumerated() {
                if offset > 0 { append(",") }
                append(JSONValue.quoted(key) + ":")
                if let member = object[key] { write(member) }
            }
            append("}")
        }
    }
}

extension JSONValue {
    /// `string` as a JSON string literal: quotes, backslashes and control characters escaped.
    package static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
