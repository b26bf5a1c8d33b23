import Foundation
import HTTPTypes

/// Which header values, query items and body fields the recorder replaces with ``marker`` before storing.
///
/// Names are compared case-insensitively everywhere, because a secret leaked through `API_KEY` is as bad as one
/// leaked through `api_key`. Values are replaced, never removed, so the trace still shows that a value existed.
///
/// ```swift
/// var policy = RedactionPolicy()                 // Authorization, Cookie, Set-Cookie, Proxy-Authorization
/// policy.headerNames.insert("X-API-Key")
/// policy.queryItemNames = ["access_token"]
/// policy.jsonFieldNames = ["password", "refresh_token"]
/// ```
public struct RedactionPolicy: Sendable, Hashable {
    /// What a redacted value is replaced with.
    public static let marker = "[REDACTED]"
    /// The marker as it appears inside a URL (percent-encoded, so the URL stays valid and `curl` does not glob it).
    public static let urlMarker = "%5BREDACTED%5D"
    /// Headers that carry credentials in almost every API.
    public static let defaultHeaderNames: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// Header names whose values are redacted (stored lowercased).
    public var headerNames: Set<String> { didSet { headerNames = Self.lowercased(headerNames) } }
    /// Query item names whose values are redacted inside URLs and form bodies (stored lowercased).
    public var queryItemNames: Set<String> { didSet { queryItemNames = Self.lowercased(queryItemNames) } }
    /// Object keys whose values are redacted at any depth of JSON bodies and in form bodies (stored lowercased).
    public var jsonFieldNames: Set<String> { didSet { jsonFieldNames = Self.lowercased(jsonFieldNames) } }

    /// A policy redacting the default headers plus the given names; pass `includeDefaults: false` to start empty.
    public init(headerNames: Set<String> = [], queryItemNames: Set<String> = [], jsonFieldNames: Set<String> = [],
                includeDefaults: Bool = true) {
        self.headerNames = Self.lowercased(headerNames.union(includeDefaults ? Self.defaultHeaderNames : []))
        self.queryItemNames = Self.lowercased(queryItemNames)
        self.jsonFieldNames = Self.lowercased(jsonFieldNames)
    }

    /// A policy that redacts nothing (for traces of test servers only).
    public static let none = RedactionPolicy(includeDefaults: false)

    // MARK: Headers

    /// The headers in order, with sensitive values replaced by ``marker``.
    public func redact(headers: [TraceHeader]) -> [TraceHeader] {
        headers.map { header in
            headerNames.contains(header.name.lowercased()) ? TraceHeader(name: header.name, value: Self.marker) : header
        }
    }

    /// swift-http-types fields as recorded headers, with sensitive values replaced by ``marker``.
    public func redact(headers: HTTPFields) -> [TraceHeader] {
        redact(headers: headers.map { TraceHeader(name: $0.name.rawName, value: $0.value) })
    }

    // MARK: URLs

    /// The URL with sensitive query item values and any password replaced by ``urlMarker``.
    ///
    /// Works on the raw query text so that everything else (order, encoding, duplicates) stays exactly as sent.
    public func redact(url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = Self.urlMarker
            changed = true
        }
        if let query = components.percentEncodedQuery, !queryItemNames.isEmpty {
            let redacted = redact(formEncoded: query, names: queryItemNames)
            if redacted != query {
                components.percentEncodedQuery = redacted
                changed = true
            }
        }
        guard changed else { return url }
        return components.string ?? url
    }

    /// The URL as text with sensitive query items and any password redacted, as the `String` overload does.
    public func redact(url: URL) -> String {
        redact(url: url.absoluteString)
    }

    // MARK: Bodies

    /// The body with sensitive fields redacted when it is JSON or a form; anything else is returned unchanged.
    ///
    /// JSON is detected by parsing, not by trusting `contentType` (apps send JSON as `text/plain` too), and is
    /// re-serialised only when a field was redacted, so untouched bodies keep their exact bytes.
    public func redact(body: Data, contentType: String?) -> Data {
        let fieldNames = jsonFieldNames
        if !fieldNames.isEmpty, Self.looksLikeJSON(body),
           let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            var changed = false
            let redacted = redact(json: object, names: fieldNames, changed: &changed)
            guard changed else { return body }
            let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
            return (try? JSONSerialization.data(withJSONObject: redacted, options: options)) ?? body
        }
        let formNames = queryItemNames.union(fieldNames)
        if !formNames.isEmpty, let contentType, contentType.lowercased().contains("application/x-www-form-urlencoded"),
           let text = String(data: body, encoding: .utf8) {
            let redacted = redact(formEncoded: text, names: formNames)
            return redacted == text ? body : Data(redacted.utf8)
        }
        return body
    }

    // MARK: Helpers

    private func redact(json: Any, names: Set<String>, changed: inout Bool) -> Any {
        if let object = json as? [String: Any] {
            var result = [String: Any](minimumCapacity: object.count)
            for (key, value) in object {
                if names.contains(key.lowercased()) {
                    result[key] = Self.marker
                    changed = true
                } else {
                    result[key] = redact(json: value, names: names, changed: &changed)
                }
            }
            return result
        }
        if let array = json as? [Any] {
            return array.map { redact(json: $0, names: names, changed: &changed) }
        }
        return json
    }

    /// Redacts `name=value` pairs of an `a=1&b=2` text, leaving every other byte as it was.
    private func redact(formEncoded text: String, names: Set<String>) -> String {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "=") else { return pair }
            let rawName = pair[..<equals]
            let name = (rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawName))
            return names.contains(name.lowercased()) ? rawName + "=" + Self.urlMarker : pair
        }
        return pairs.joined(separator: "&")
    }

    /// A cheap pre-check so binary and text bodies are not handed to the JSON parser at all.
    private static func looksLikeJSON(_ body: Data) -> Bool {
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            return false
        }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func lowercased(_ names: Set<String>) -> Set<String> {
        Set(names.map { $0.lowercased() })
    }
}
