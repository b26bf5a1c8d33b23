/// Two JSON documents compared by structure: object members by key, array elements by index, numbers by decimal
/// value (``JSONValue``'s equality). The replay's diff and a cassette's body matcher both read it.
///
/// Arrays are compared position by position (an element inserted at the front shows as every later element
/// changed) so every reported path points at the same place in both documents, which is what `--ignore` and
/// noise detection match on.
package enum JSONComparison {
    /// One place where the documents differ; values as compact JSON, cut at ``valueLimit``.
    package struct Difference: Sendable, Equatable {
        package enum Change: Sendable, Equatable {
            case changed(from: String, to: String)
            /// Present only in the new document.
            case added(String)
            /// Present only in the old one.
            case removed(String)
        }

        package var path: JSONPath
        package var change: Change
    }

    /// Values longer than this (as compact JSON) are shown cut, ending in `…`.
    package static let valueLimit = 200

    /// The differences from `old` to `new`, in document order: the old document's keys first, then keys only the
    /// new one has. A redacted value is never compared nor shown: showing the other side could print the secret
    /// it hid.
    package static func differences(_ old: JSONValue, _ new: JSONValue, at path: JSONPath = .root) -> [Difference] {
        var result: [Difference] = []
        compare(old, new, at: path, into: &result)
        return result
    }

    private static func compare(_ old: JSONValue, _ new: JSONValue, at path: JSONPath, into result: inout [Difference]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            for key in before.keys {
                let member = path.appending(.key(key))
                if let left = before[key], let right = after[key] {
                    compare(left, right, at: member, into: &result)
                } else if let left = before[key], !isRedacted(left) {
                    result.append(Difference(path: member, change: .removed(text(left))))
                }
            }
            for key in after.keys where before[key] == nil {
                guard let right = after[key], !isRedacted(right) else { continue }
                result.append(Difference(path: path.appending(.key(key)), change: .added(text(right))))
            }
        case (.array(let before), .array(let after)):
            for index in 0..<max(before.count, after.count) {
                let element = path.appending(.index(index))
                if index < before.count, index < after.count {
                    compare(before[index], after[index], at: element, into: &result)
                } else if index < before.count {
                    result.append(Difference(path: element, change: .removed(text(before[index]))))
                } else {
                    result.append(Difference(path: element, change: .added(text(after[index]))))
                }
            }
        default:
            guard old != new, !isRedacted(old), !isRedacted(new) else { return }
            result.append(Difference(path: path, change: .changed(from: text(old), to: text(new))))
        }
    }

    private static func text(_ value: JSONValue) -> String { value.compactText(limit: valueLimit) }

    private static func isRedacted(_ value: JSONValue) -> Bool {
        if case .string(let string) = value { return string.contains(RedactionPolicy.marker) }
        return false
    }
}
