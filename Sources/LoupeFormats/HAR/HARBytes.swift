import Foundation
@_spi(JSON) import LoupeTrace

/// The export's output: JSON bytes stored through a pointer into memory reserved ahead, laid out exactly as
/// ``PrettyJSON`` lays them out (`JSONEncoder`'s `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`).
///
/// ``PrettyJSON`` appends to an `Array` one byte or one small run at a time, and each append checks the array's
/// uniqueness and capacity; an export writes a few hundred of them per entry. Here each piece reserves what it may
/// need once and then stores bytes. Containers are opened and closed by calls rather than closures, so the entry
/// writer is straight-line code. A class, so the buffer is freed once and writers pass it without copying; it is
/// used by one writer on one thread at a time (not `Sendable`).
final class HARBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// The nesting level of the container being written.
    private var depth: Int
    /// Whether the container being written has no member yet.
    private var isEmpty = true

    /// - Parameters:
    ///   - capacity: bytes reserved at first (the buffer grows past it when an entry needs more).
    ///   - depth: the level the first container opens at (an entry in a HAR's `entries` is at 3).
    init(capacity: Int, depth: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        self.depth = depth
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes written, keeping the memory.
    func removeAll() {
        count = 0
    }

    // MARK: Raw bytes

    @inline(__always)
    func reserve(_ extra: Int) {
        if capacity - count < extra { grow(to: count + extra) }
    }

    @inline(never)
    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    /// Stores a byte in memory already reserved.
    @inline(__always)
    private func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    func append(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        text.withUTF8Buffer { put($0) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        put(bytes.bindMemory(to: UInt8.self))
    }

    // MARK: Containers

    /// Opens an object (`{`) or array (`[`); pass what it returns to ``close(_:_:)``.
    func open(_ bracket: UInt8) -> Bool {
        reserve(1)
        put(bracket)
        let outerEmpty = isEmpty
        depth += 1
        isEmpty = true
        return outerEmpty
    }

    func close(_ bracket: UInt8, _ outerEmpty: Bool) {
        depth -= 1
        reserve(3 + 2 * depth)
        put(UInt8(ascii: "\n"))
        if isEmpty { put(UInt8(ascii: "\n")) }
        indent()
        put(bracket)
        isEmpty = outerEmpty
    }

    /// Starts the next member of the current container: the comma after the previous one, a new line, the indent.
    @inline(__always)
    private func member(extra: Int) {
        reserve(2 + 2 * depth + extra)
        if !isEmpty { put(UInt8(ascii: ",")) }
        isEmpty = false
        put(UInt8(ascii: "\n"))
        indent()
    }

    @inline(__always)
    private func indent() {
        let spaces = 2 * depth
        (base + count).update(repeating: UInt8(ascii: " "), count: spaces)
        count += spaces
    }

    /// Starts an array element.
    func element() {
        member(extra: 0)
    }

    /// Starts an object member: `"name" : ` (a name of the types' own, which needs no escaping).
    func key(_ name: StaticString) {
        member(extra: name.utf8CodeUnitCount + 5)
        put(UInt8(ascii: "\""))
        name.withUTF8Buffer { put($0) }
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: " "))
        put(UInt8(ascii: ":"))
        put(UInt8(ascii: " "))
    }

    /// Starts an object member whose name comes from the data (a map's key).
    func key(escaping name: String) {
        member(extra: 0)
        string(name)
        append(" : ")
    }

    // MARK: Values

    func string(_ text: String) {
        guard text.utf8.withContiguousStorageIfAvailable({ string($0) }) == nil else { return }
        var text = text
        text.withUTF8 { string($0) }
    }

    /// UTF-8 bytes as a JSON string: `"`, `\` and control characters escaped (`\b \t \n \f \r`, else `\u00xx`),
    /// everything else copied as it is scanned.
    func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        if JSONInvisibles.mayHold(utf8) { return stringEscapingInvisibles(utf8) }
        reserve(utf8.count + 2)
        put(UInt8(ascii: "\""))
        var index = 0
        while true {
            let stop = JSONByteScan.copyToStop(from: utf8, start: index, to: base + count)
            count += stop - index
            guard stop < utf8.count else { break }
            let byte = utf8[stop]
            // What is left, at worst: this escape (6 bytes), the rest copied, the closing quote.
            reserve(6 + utf8.count - stop)
            escapeByte(byte)
            index = stop + 1
        }
        put(UInt8(ascii: "\""))
    }

    /// `utf8` as a JSON string with ``JSONInvisibles`` escaped too, a scalar at a time: the rare string that
    /// needs it.
    private func stringEscapingInvisibles(_ utf8: UnsafeBufferPointer<UInt8>) {
        reserve(utf8.count + 2)
        put(UInt8(ascii: "\""))
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            reserve(6)
            if JSONInvisibles.isEscaped(scalar) {
                for byte in JSONInvisibles.escape(scalar).utf8 { put(byte) }
            } else if scalar.value < 0x20 || scalar == "\"" || scalar == "\\" {
                escapeByte(UInt8(scalar.value))
            } else {
                UTF8.encode(scalar) { put($0) }
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// One byte that JSON must escape: `\"`, `\\`, `\b \t \n \f \r`, else `\u00xx`. The caller reserved 6 bytes.
    private func escapeByte(_ byte: UInt8) {
        count += JSONByteScan.writeEscape(of: byte, to: base + count)
    }

    /// A string already escaped by the rules above (``StoredHeaderText`` checks that), quoted; one holding a
    /// character ``JSONInvisibles`` escapes is written again from its text.
    func string(escaped: UnsafeBufferPointer<UInt8>) {
        if JSONInvisibles.mayHold(escaped) { return string(StoredHeaderText.unescaped(escaped)) }
        reserve(escaped.count + 2)
        put(UInt8(ascii: "\""))
        put(escaped)
        put(UInt8(ascii: "\""))
    }

    @inline(__always)

    func int(_ value: Int) {
        reserve(20)
        if value >= 0, value < 10 { return put(UInt8(ascii: "0") + UInt8(value)) }
        var digits = 0
        var rest = value.magnitude
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        if value < 0 { put(UInt8(ascii: "-")) }
        rest = value.magnitude
        var position = count + digits
        count = position
        repeat {
            position -= 1
            base[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
    }

    func double(_ value: Double) throws {
        guard value.isFinite else { throw PrettyJSON.InvalidValue(description: "\(value) is not a valid JSON number") }
        // Whole numbers as integers, which is what `description` gives less its `.0` below 1e16; -0 keeps its sign
        // through `description`.
        if value.rounded(.towardZero) == value, abs(value) < 1e15, value != 0 || value.sign == .plus {
            return int(Int(value))
        }
        if Self.writeMicroseconds(value, to: self) { return }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        string(unquoted: text)
    }

    /// Writes `value` as `description` writes it when it is a whole number of microseconds (timings, `_loupe`
    /// times) of magnitude from 0.001 below 2^32: there the spacing of doubles (under a microsecond) leaves the
    /// six-decimal text, less its trailing zeros, as the one shortest text that reads back as `value`, which is
    /// the text `description` chooses. Returns `false`, having written nothing, for any other value.
    private static func writeMicroseconds(_ value: Double, to out: HARBytes) -> Bool {
        let magnitude = abs(value)
        guard magnitude >= 0.001, magnitude < 4_294_967_296 else { return false }
        let micros = (magnitude * 1_000_000).rounded()
        guard micros / 1_000_000 == magnitude else { return false }
        let whole = Int(micros) / 1_000_000
        var fraction = Int(micros) % 1_000_000
        out.reserve(20 + 8)
        if value < 0 { out.put(UInt8(ascii: "-")) }
        out.int(whole)
        guard fraction != 0 else { return true }  // not reached: whole numbers took the integer path
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        out.put(UInt8(ascii: "."))
        var position = out.count + digits
        out.count = position
        for _ in 0..<digits {
            position -= 1
            out.base[position] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
        return true
    }

    private func string(unquoted text: String) {
        var text = text
        text.withUTF8 { bytes in
            reserve(bytes.count)
            put(bytes)
        }
    }

    func bool(_ value: Bool) {
        append(value ? "true" : "false")
    }

    // MARK: Members

    func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        member(name, value)
    }

    /// A member whose value is JSON text already (a gRPC message in protobuf's JSON mapping), written as it is.
    func member(_ name: StaticString, json text: String?) {
        guard let text else { return }
        key(name)
        string(unquoted: text)
    }

    func member(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        member(name, value)
    }

    func member(_ name: StaticString, _ value: Double) throws {
        key(name)
        try double(value)
    }

    func member(_ name: StaticString, _ value: Double?) throws {
        guard let value else { return }
        try member(name, value)
    }

    func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// A `[String: String]` as the encoder writes one: keys in UTF-8 byte order.
    func member(_ name: StaticString, _ dictionary: [String: String]) {
        key(name)
        let outer = open(UInt8(ascii: "{"))
        if dictionary.count == 1, let (key, value) = dictionary.first {
            self.key(escaping: key)
            string(value)
        } else {
            for (key, value) in PrettyJSON.sortedByKey(dictionary) {
                self.key(escaping: key)
                string(value)
            }
        }
        close(UInt8(ascii: "}"), outer)
    }
}
