import Foundation
import LoupeTrace

/// A held request as the viewer may see it, and the viewer's edit of that form turned back into what the app sends.
///
/// A held request leaves the app redacted like every recorded exchange (headers, query items and body fields by
/// name, with ``RedactionPolicy``), so the viewer's screen, its editor's file and the link carry no credential.
/// The viewer edits the redacted form; every value it left as the marker is the app's own value again when the
/// edit comes back. A marker where the app has no value (a redacted header added or renamed, a marker typed into
/// the body) is refused rather than sent literally.
public struct HeldRedaction: Sendable {
    public let policy: RedactionPolicy

    public init(_ policy: RedactionPolicy) {
        self.policy = policy
    }

    /// Why an edit cannot be sent as the app would send it.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `held` with its secrets redacted: what the viewer is sent.
    public func redacted(_ held: HeldRequest) -> HeldRequest {
        var held = held
        let contentType = held.headers.first { $0.name.lowercased() == "content-type" }?.value
        held.headers = policy.redact(headers: held.headers)
        held.url = policy.redact(url: held.url)
        held.body = held.body.map { policy.redact(body: $0, contentType: contentType) }
        return held
    }

    /// `edit` (made on ``redacted(_:)`` of `original`) with the app's own value put back wherever the viewer left
    /// a redacted one.
    public func restore(_ edit: HoldEdit, original: HeldRequest) -> Result<HoldEdit, Refusal> {
        let redacted = redacted(original)
        var edit = edit
        if let headers = edit.headers {
            var restored: [TraceHeader] = []
            // The n-th header of a name takes the value of the app's n-th header of that name.
            var seen: [String: Int] = [:]
            for header in headers {
                let name = header.name.lowercased()
                let nth = seen[name, default: 0]
                seen[name] = nth + 1
                guard header.value.contains(RedactionPolicy.marker) else {
                    restored.append(header)
                    continue
                }
                let originals = original.headers.filter { $0.name.lowercased() == name }
                let shown = redacted.headers.filter { $0.name.lowercased() == name }
                guard nth < originals.count, nth < shown.count, shown[nth].value == header.value else {
                    return .failure(Refusal(description:
                        "header \(header.name) holds \(RedactionPolicy.marker) and the app has no value for it"))
                }
                restored.append(TraceHeader(name: header.name, value: originals[nth].value))
            }
            edit.headers = restored
        }
        if let url = edit.url, url.contains(RedactionPolicy.urlMarker) || url.contains(RedactionPolicy.marker) {
            guard let value = Self.fill(Array(url.utf8), shown: Array(redacted.url.utf8), original: Array(original.url.utf8),
                                        marker: Array(RedactionPolicy.urlMarker.utf8)) else {
                return .failure(Refusal(description: "the URL holds \(RedactionPolicy.urlMarker) where the app has no value"))
            }
            edit.url = String(decoding: value, as: UTF8.self)
        }
        if let body = edit.body, body.range(of: Data(RedactionPolicy.marker.utf8)) != nil {
            guard let value = Self.fill(Array(body), shown: Array(redacted.body ?? Data()), original: Array(original.body ?? Data()),
                                        marker: Array(RedactionPolicy.marker.utf8)) else {
                return .failure(Refusal(description: "the body holds \(RedactionPolicy.marker) where the app has no value"))
            }
            edit.body = Data(value)
        }
        return .success(edit)
    }

    /// `edited` with each marker replaced by the value it stands for in `original`, `shown` being `original`
    /// redacted; nil when the markers cannot be matched one for one (one added, moved or removed).
    ///
    /// The values are found by reading `original` along `shown`: the text between two markers in `shown` is in
    /// `original` too, right after the value the first marker hides (a value cannot hold the text that ends it: a
    /// JSON string holds no bare `"`, a query value no bare `&`). Each marker in `edited` must follow the same few
    /// bytes as its counterpart in `shown`, so a marker typed somewhere new is not mistaken for one left in place.
    static func fill(_ edited: [UInt8], shown: [UInt8], original: [UInt8], marker: [UInt8]) -> [UInt8]? {
        let shownParts = split(shown, by: marker)
        let editedParts = split(edited, by: marker)
        guard shownParts.count == editedParts.count, shownParts.count > 1 else { return nil }
        // The hidden values, in order.
        var values: [ArraySlice<UInt8>] = []
        guard original.starts(with: shownParts[0]) else { return nil }
        var position = shownParts[0].count
        for index in 1..<shownParts.count {
            let following = shownParts[index]
            let end: Int
            if index == shownParts.count - 1 {
                guard original.count - position >= following.count,
                      original[(original.count - following.count)...].elementsEqual(following) else { return nil }
                end = original.count - following.count
            } else {
                guard !following.isEmpty, let found = firstRange(of: following, in: original, from: position) else { return nil }
                end = found
            }
            guard end >= position else { return nil }
            values.append(original[position..<end])
            position = end + following.count
        }
        var result: [UInt8] = Array(editedParts[0])
        for index in 1..<editedParts.count {
            // The bytes right before the marker, as the viewer was shown them.
            let context = min(8, shownParts[index - 1].count, editedParts[index - 1].count)
            guard shownParts[index - 1].suffix(context).elementsEqual(editedParts[index - 1].suffix(context)) else { return nil }
            result += values[index - 1]
            result += editedParts[index]
        }
        return result
    }

    private static func split(_ bytes: [UInt8], by marker: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        var position = 0
        while let found = firstRange(of: marker, in: bytes, from: position) {
            parts.append(bytes[start..<found])
            start = found + marker.count
            position = start
        }
        parts.append(bytes[start...])
        return parts
    }

    private static func firstRange(of needle: some Collection<UInt8>, in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let first = needle.first!
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
