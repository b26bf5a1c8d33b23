import Foundation
import HTTPTypes
import Loupe

/// What a rule's rewrite or an edit at a breakpoint changed in a request, said exactly for its event: the URL
/// (and method), each header set (with its value) or removed, and the body with both sizes.
///
/// Header values appear as they were set: the recorder redacts event texts by name (`Bearer …`, URLs) and by value
/// (every credential in the headers sent) before anything is stored, exactly as it does the headers themselves.
struct RequestChanges: Sendable, Equatable, CustomStringConvertible {
    /// `GET https://a.test/users → GET https://b.test/mapped/users`, when the method or URL changed.
    var target: String?
    /// `X-Rehearsal: yes`, one per header field set or changed, in the order sent.
    var set: [String] = []
    /// Names of the fields removed.
    var removed: [String] = []
    /// `20 B → 21 B`, when the body changed.
    var body: String?

    init(from before: HTTPRequest, body bodyBefore: Data?, to after: HTTPRequest, body bodyAfter: Data?) {
        let (from, to) = (RuleSubject.url(of: before), RuleSubject.url(of: after))
        if from != to || before.method != after.method {
            target = "\(before.method.rawValue) \(from) → \(after.method.rawValue) \(to)"
        }
        if before.headerFields != after.headerFields {
            for name in Self.names(of: after.headerFields) where before.headerFields[values: name] != after.headerFields[values: name] {
                set += after.headerFields[fields: name].map { "\($0.name.rawName): \($0.value)" }
            }
            removed = Self.names(of: before.headerFields).filter { after.headerFields[values: $0].isEmpty }.map(\.rawName)
        }
        if let bodyAfter, bodyAfter != bodyBefore {
            body = "\(Quantity.bytes(bodyBefore?.count ?? 0)) → \(Quantity.bytes(bodyAfter.count))"
        }
    }

    /// Nothing changed.
    var isEmpty: Bool { target == nil && set.isEmpty && removed.isEmpty && body == nil }

    /// `URL GET a → GET b; set X-Rehearsal: yes; removed Cookie; body 20 B → 21 B`, or `no change`.
    var description: String {
        var parts: [String] = []
        if let target { parts.append("URL " + target) }
        if !set.isEmpty { parts.append("set " + set.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        if let body { parts.append("body " + body) }
        return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
    }

    /// The same facts as event attributes (only those present): `url`, `set`, `removed`, `body`.
    var attributes: [String: String] {
        var attributes: [String: String] = [:]
        if let target { attributes["url"] = target }
        if !set.isEmpty { attributes["set"] = set.joined(separator: "\n") }
        if !removed.isEmpty { attributes["removed"] = removed.joined(separator: ",") }
        if let body { attributes["body"] = body }
        return attributes
    }

    /// The distinct field names, in order of first appearance.
    private static func names(of fields: HTTPFields) -> [HTTPField.Name] {
        var seen = Set<HTTPField.Name>(), names: [HTTPField.Name] = []
        for field in fields where seen.insert(field.name).inserted { names.append(field.name) }
        return names
    }
}
