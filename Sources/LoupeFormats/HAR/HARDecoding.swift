import Foundation
import LoupeTrace

/// The forgiving reads HAR decoding uses: tools write `null`, numbers as strings and strings as numbers.
///
/// An absent key is answered with one lookup rather than one per type tried: most optional HAR fields (`comment`
/// on every header) are absent, and the tries were a good part of decoding an entry.
extension KeyedDecodingContainer {
    /// A string, or a number or boolean written as text; `nil` when absent, `null` or another type.
    func lenientString(_ key: Key) -> String? {
        guard contains(key) else { return nil }
        if let value = try? decodeIfPresent(String.self, forKey: key) { return value }
        if let value = try? decodeIfPresent(Int.self, forKey: key) { return String(value) }
        if let value = try? decodeIfPresent(Double.self, forKey: key) { return String(value) }
        if let value = try? decodeIfPresent(Bool.self, forKey: key) { return String(value) }
        return nil
    }

    /// A finite number, or a string holding one; `nil` when absent, `null` or anything else.
    func lenientDouble(_ key: Key) -> Double? {
        guard contains(key) else { return nil }
        let value = (try? decodeIfPresent(Double.self, forKey: key))
            ?? (try? decodeIfPresent(String.self, forKey: key)).flatMap { $0.flatMap { Double($0) } }
        guard let value, value.isFinite else { return nil }
        return value
    }

    /// A whole number (fractions cut, out-of-range values rejected); `nil` when absent or not a number.
    func lenientInt(_ key: Key) -> Int? {
        guard contains(key) else { return nil }
        if let value = try? decodeIfPresent(Int.self, forKey: key) { return value }
        guard let double = lenientDouble(key), abs(double) < 9e15 else { return nil }
        return Int(double)
    }

    /// A string that must be there: a missing or `null` one is reported with the field's path.
    func requiredString(_ key: Key) throws -> String {
        guard let value = lenientString(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "\(key.stringValue) is missing"))
        }
        return value
    }
}
