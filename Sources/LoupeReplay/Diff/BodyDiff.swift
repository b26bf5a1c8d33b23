import Foundation
import LoupeTrace

/// Two response bodies compared the way they can be read: as JSON by structure when both are JSON, else as
/// UTF-8 text by lines, else as bytes.
package enum BodyDiff {
    /// The differences from `old` to `new`; `oldType` and `newType` are the `Content-Type` values, if any.
    package static func differences(_ old: Data, _ new: Data, oldType: String? = nil, newType: String? = nil) -> [Difference] {
        guard old != new else { return [] }
        if looksLikeJSON(old, type: oldType), looksLikeJSON(new, type: newType),
           let before = JSONParser.parse(old), let after = JSONParser.parse(new) {
            return JSONDiff.differences(before, after)
        }
        if let before = String(validating: old, as: UTF8.self), let after = String(validating: new, as: UTF8.self) {
            return [Difference(.body, .lines(LineDiff(old: before, new: after)))]
        }
        return [Difference(.body, .bytes(from: old.count, to: new.count))]
    }

    /// A body is read as JSON when its type says so (`application/json`, `…+json`) or it starts like a document.
    static func looksLikeJSON(_ data: Data, type: String?) -> Bool {
        if let type, type.lowercased().contains("json") { return true }
        let first = data.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
