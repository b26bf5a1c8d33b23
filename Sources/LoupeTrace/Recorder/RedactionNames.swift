import Foundation

/// A set of header, query item or field names that matches names loosely: ignoring case, `-` and `_`.
///
/// `X-Api-Key`, `x_api_key` and `XAPIKEY` are one name here, and so are `access_token`, `accessToken` and
/// `Access-Token`: a secret leaked through a spelling the list did not foresee is as bad as any other. Every set
/// operation works on that loose form, so `names.remove("x-api-key")` removes `X-API-Key`. Iterating gives the
/// names as first inserted, sorted.
///
/// ```swift
/// var names: RedactionNames = ["X-Api-Key", "Authorization"]
/// names.contains("x_api_key")      // true
/// names.remove("AUTHORIZATION")    // "Authorization"
/// ```
public struct RedactionNames: SetAlgebra, Sequence, Sendable, Hashable, CustomStringConvertible {
    /// A header, query item or field name, as given (matching ignores case, `-` and `_`).
    public typealias Element = String

    /// Loose form → the spelling first inserted.
    private var storage: [String: String] {
        // Rebuilt on every change (names change when a policy is made, not per exchange); `didSet` without
        // `oldValue` mutates the dictionary in place.
        didSet {
            filter = NameFilter(storage.keys)
            exact = ExactNames(storage)
        }
    }
    /// Rejects most names that are not here without normalizing or hashing them (see ``NameFilter``).
    private var filter = NameFilter()
    /// The names as inserted and in loose form, byte for byte: a name spelled as one of them is here without being
    /// normalized or hashed (see ``ExactNames``).
    private var exact = ExactNames()

    public init() { storage = [:] }

    public init<S: Sequence>(_ names: S) where S.Element == String {
        storage = [:]
        for name in names { insert(name) }
    }

    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// The form names are compared in: lowercased, without `-` and `_`.
    public static func normalized(_ name: some StringProtocol) -> String {
        // Header and field names are ASCII: lowercase and drop bytes in one pass, without Unicode case mapping.
        if let ascii = asciiNormalized(name) { return ascii }
        var result = ""
        result.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars where scalar != "-" && scalar != "_" {
            result.unicodeScalars.append(scalar)
        }
        return result.lowercased()
    }

    private static func asciiNormalized(_ name: some StringProtocol) -> String? {
        let utf8 = name.utf8
        return utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { output in
                var count = 0
                for byte in bytes where byte != UInt8(ascii: "-") && byte != UInt8(ascii: "_") {
                    output[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                    count += 1
                }
                return count
            }
        } ?? nil
    }

    /// The longest loose form in the set, in UTF-8 bytes (lets scanners skip longer keys without normalising them).
    var longestNormalizedLength: Int { storage.keys.map(\.utf8.count).max() ?? 0 }

    /// Whether a name already in loose form is in the set.
    func containsNormalized(_ normalized: String) -> Bool { storage[normalized] != nil }

    /// False when `name` is certainly not here: a few byte reads, no allocation, no hashing. The recorder asks it
    /// of every header and every JSON key of every exchange, and almost none of them are secrets.
    func mayContain(_ name: some StringProtocol) -> Bool { filter.mayContain(name) }

    /// ``mayContain(_:)`` for a name whose bytes ``NameFilter/probe(_:)`` read.
    func mayContain(probe: (Int, Int)?) -> Bool { filter.mayContain(probe: probe) }

    public var isEmpty: Bool { storage.isEmpty }
    public var count: Int { storage.count }
    public var description: String { sorted().description }

    public func makeIterator() -> IndexingIterator<[String]> {
        storage.values.sorted().makeIterator()
    }

    public func contains(_ name: String) -> Bool {
        guard filter.mayContain(name) else { return false }
        // Most names that get past the filter are a member spelled as it was inserted (`Authorization`) or in
        // loose form (HTTP/2's `authorization`): the same bytes normalize to the same key.
        return exact.contains(name) || storage[Self.normalized(name)] != nil
    }

    @discardableResult
    public mutating func insert(_ name: String) -> (inserted: Bool, memberAfterInsert: String) {
        let key = Self.normalized(name)
        if let existing = storage[key] { return (false, existing) }
        storage[key] = name
        return (true, name)
    }

    @discardableResult
    public mutating func remove(_ name: String) -> String? {
        storage.removeValue(forKey: Self.normalized(name))
    }

    @discardableResult
    public mutating func update(with name: String) -> String? {
        storage.updateValue(name, forKey: Self.normalized(name))
    }

    public func union(_ other: RedactionNames) -> RedactionNames {
        var result = self
        result.formUnion(other)
        return result
    }

    public func intersection(_ other: RedactionNames) -> RedactionNames {
        var result = self
        result.formIntersection(other)
        return result
    }

    public func symmetricDifference(_ other: RedactionNames) -> RedactionNames {
        var result = self
        result.formSymmetricDifference(other)
        return result
    }

    public mutating func formUnion(_ other: RedactionNames) {
        storage.merge(other.storage) { mine, _ in mine }
    }

    public mutating func formIntersection(_ other: RedactionNames) {
        storage = storage.filter { other.storage[$0.key] != nil }
    }

    public mutating func formSymmetricDifference(_ other: RedactionNames) {
        for (key, name) in other.storage {
            if storage.removeValue(forKey: key) == nil { storage[key] = name }
        }
    }

    public static func == (lhs: RedactionNames, rhs: RedactionNames) -> Bool {
        lhs.storage.keys.count == rhs.storage.keys.count && lhs.storage.keys.allSatisfy { rhs.storage[$0] != nil }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(Set(storage.keys))
    }
}

/// The spellings a ``RedactionNames`` holds (each name as first inserted, and its loose form), as bytes grouped by
/// length. A name whose bytes equal one of them normalizes to that member's loose form, so it is a member: what the
/// set answered after normalizing it into a new string and hashing that (a new string for each exchange's
/// `Authorization`). Bytes are compared, not `String`s: `==` also equates canonically equivalent strings (a Kelvin
/// sign and `K`), whose normalized forms the exact lookup decides. A name matching none is looked up as before.
struct ExactNames: Sendable {
    /// Spellings of `n` UTF-8 bytes at index `n`, for lengths under ``limit``.
    private var byLength: [[[UInt8]]] = []
    private static let limit = 64

    init() {}

    init(_ storage: [String: String]) {
        for (key, name) in storage {
            for spelling in key == name ? [key] : [key, name] {
                let count = spelling.utf8.count
                guard count > 0, count < Self.limit else { continue }
                if byLength.count <= count { byLength += Array(repeating: [], count: count + 1 - byLength.count) }
                byLength[count].append(Array(spelling.utf8))
            }
        }
    }

    func contains(_ name: String) -> Bool {
        let count = name.utf8.count
        guard count > 0, count < byLength.count, !byLength[count].isEmpty else { return false }
        return name.utf8.withContiguousStorageIfAvailable { bytes in
            byLength[count].contains { spelling in
                spelling.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0 }
            }
        } ?? false
    }
}

/// A 256-bit Bloom filter over the normalized names' length and first and last bytes: `mayContain` answers from a
/// name's bytes as they come (separators skipped, ASCII letters lowered, as ``RedactionNames/normalized(_:)`` does)
/// without building the normalized string. A name that is not ASCII is always let through to the exact lookup.
struct NameFilter: Sendable {
    private var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(_ normalizedNames: some Sequence<String>) {
        for name in normalizedNames {
            let utf8 = name.utf8
            guard let first = utf8.first, let last = utf8.last else { continue }
            let (a, b) = Self.indexes(length: utf8.count, first: first, last: last)
            set(a)
            set(b)
        }
    }

    func mayContain(_ name: some StringProtocol) -> Bool {
        name.utf8.withContiguousStorageIfAvailable { mayContain(probe: Self.probe($0)) } ?? true
    }

    /// ``mayContain(_:)`` with the name's bytes read beforehand by ``probe(_:)``: one read of a JSON key answers
    /// both the field names' filter and the header names'.
    func mayContain(probe: (Int, Int)?) -> Bool {
        guard let (a, b) = probe else { return true }
        return isSet(a) && isSet(b)
    }

    /// The two bits a name's bytes select, or `nil` when every filter lets the name through (a byte past ASCII,
    /// or nothing but separators).
    static func probe(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        var length = 0
        var first: UInt8 = 0, last: UInt8 = 0
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            guard byte != UInt8(ascii: "-"), byte != UInt8(ascii: "_") else { continue }
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if length == 0 { first = lowered }
            last = lowered
            length += 1
        }
        guard length > 0 else { return nil }
        return indexes(length: length, first: first, last: last)
    }

    private static func indexes(length: Int, first: UInt8, last: UInt8) -> (Int, Int) {
        let key = UInt64(truncatingIfNeeded: length) | UInt64(first) << 16 | UInt64(last) << 24
        let mixed = key &* 0x9E37_79B9_7F4A_7C15
        return (Int(truncatingIfNeeded: mixed >> 56), Int(truncatingIfNeeded: (mixed >> 48) & 0xFF))
    }

    private mutating func set(_ index: Int) {
        let bit = UInt64(1) << UInt64(index & 63)
        switch index >> 6 {
        case 0: bits.0 |= bit
        case 1: bits.1 |= bit
        case 2: bits.2 |= bit
        default: bits.3 |= bit
        }
    }

    private func isSet(_ index: Int) -> Bool {
        let word = switch index >> 6 {
        case 0: bits.0
        case 1: bits.1
        case 2: bits.2
        default: bits.3
        }
        return word & (UInt64(1) << UInt64(index & 63)) != 0
    }
}
