import Foundation

/// Writes JSON bytes laid out exactly as `JSONEncoder` with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`
/// lays them out, so that a HAR written value by value is byte for byte the file the encoder would give.
///
/// That layout: two spaces per level, `"key" : value`, an empty container as `[\n\n]` or `{\n\n}` (indented),
/// strings with `"`, `\` and control characters escaped (`\b \t \n \f \r`, else `\u00xx`) and nothing else, numbers
/// as Swift describes them without a trailing `.0`. Keys must be written in sorted order (byte order of UTF-8, as
/// the encoder sorts): the types that write themselves list their keys that way.
///
/// One encoder per document was most of the old export's time; this writes straight into a reused byte buffer.
package struct PrettyJSON {
    /// The bytes written so far.
    package var bytes: [UInt8] = []
    /// The nesting level of the container being written.
    private var depth: Int
    /// Whether the container being written has no member yet.
    private var isEmpty = true

    /// - Parameter depth: the level the first container opens at (an entry in a HAR's `entries` is at 3).
    package init(depth: Int = 0) {
        self.depth = depth
    }

    /// Thrown for values `JSONEncoder` refuses too (a number that is not finite).
    package struct InvalidValue: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    // MARK: Containers

    package mutating func object(_ body: (inout PrettyJSON) throws -> Void) rethrows {
        try container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
    }

    package mutating func array(_ body: (inout PrettyJSON) throws -> Void) rethrows {
        try container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
    }

    private mutating func container(open: UInt8, close: UInt8, _ body: (inout PrettyJSON) throws -> Void) rethrows {
        bytes.append(open)
        let outerEmpty = isEmpty
        depth += 1
        isEmpty = true
        try body(&self)
        depth -= 1
        bytes.append(UInt8(ascii: "\n"))
        if isEmpty { bytes.append(UInt8(ascii: "\n")) }
        indent()
        bytes.append(close)
        isEmpty = outerEmpty
    }

    /// Starts the next member of the current container: the comma after the previous one, a new line, the indent.
    private mutating func member() {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        bytes.append(UInt8(ascii: "\n"))
        indent()
    }

    private mutating func indent() {
        var count = 2 * depth
        while count > 0 {
            let run = min(count, Self.spaces.count)
            Self.spaces.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<run])) }
            count -= run
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// Starts an array element.
    package mutating func element() {
        member()
    }

    /// Starts an object member: `"name" : ` (a name of the types' own, which needs no escaping).
    package mutating func key(_ name: StaticString) {
        member()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        separator()
    }

    /// Starts an object member whose name comes from the data (a map's key).
    package mutating func key(escaping name: String) {
        member()
        string(name)
        separator()
    }

    private mutating func separator() {
        bytes.append(UInt8(ascii: " "))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    // MARK: Values

    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
    }

    package mutating func int(_ value: Int) {
        if value >= 0, value < 10 { return bytes.append(UInt8(ascii: "0") + UInt8(value)) }
        // Digits from the right into a buffer on the stack: no `String` per number.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var rest = value.magnitude
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    package mutating func double(_ value: Double) throws {
        guard value.isFinite else { throw InvalidValue(description: "\(value) is not a valid JSON number") }
        // Whole numbers (most timings: -1, whole milliseconds) as integers, which is what `description` gives less
        // its `.0` up to 1e16; -0 keeps its sign through `description`.
        if value.rounded(.towardZero) == value, abs(value) < 1e15, value != 0 || value.sign == .plus {
            return int(Int(value))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    package mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    // MARK: Members

    package mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    package mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        member(name, value)
    }

    package mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    package mutating func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        member(name, value)
    }

    package mutating func member(_ name: StaticString, _ value: Double) throws {
        key(name)
        try double(value)
    }

    package mutating func member(_ name: StaticString, _ value: Double?) throws {
        guard let value else { return }
        try member(name, value)
    }

    package mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// A map's members in the order `JSONEncoder`'s `.sortedKeys` writes them: keys in UTF-8 byte order.
    package static func sortedByKey(_ dictionary: [String: String]) -> [(key: String, value: String)] {
        dictionary.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// A `[String: String]` as the encoder writes one: keys in UTF-8 byte order.
    package mutating func member(_ name: StaticString, _ dictionary: [String: String]) {
        key(name)
        object { json in
            for (key, value) in Self.sortedByKey(dictionary) {
                json.key(escaping: key)
                json.string(value)
            }
        }
    }

    // MARK: Escaping

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        while true {
            // Only `"`, `\` and bytes below 0x20 are escaped; everything else (UTF-8 included) is copied in runs,
            // found eight bytes a step (a byte at a time was most of what writing a header list cost the recorder;
            // a header list is written for every exchange).
            let stop = JSONByteScan.firstStop(in: utf8, from: runStart)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<stop]))
            guard stop < utf8.count else { break }
            let byte = utf8[stop]
            runStart = stop + 1
            let (word, count) = JSONByteScan.escape(byte)
            withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0.prefix(count)) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
