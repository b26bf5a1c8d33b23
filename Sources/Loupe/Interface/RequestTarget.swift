import Foundation

/// The client's base URL split once into the parts every request reuses, so building a request does no URL parsing.
struct RequestTarget: Sendable {
    let scheme: String
    let authority: String
    /// The base path without a trailing slash ("" for the root).
    let basePath: String
    /// The base URL's own query, already percent-encoded.
    let baseQuery: String?

    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme, let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        self.scheme = scheme
        self.authority = components.port.map { "\(host):\($0)" } ?? host
        let path = components.percentEncodedPath
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        self.baseQuery = components.percentEncodedQuery
    }

    /// `basePath` + `path` (percent-encoded where needed) + the query items.
    func pathAndQuery(_ path: String, query: [URLQueryItem]) -> String {
        var result = basePath + (path.hasPrefix("/") ? "" : "/")
        result += path.addingPercentEncoding(withAllowedCharacters: Self.pathAllowed) ?? path
        var parts = baseQuery.map { [$0] } ?? []
        for item in query {
            let name = Self.encodeQueryComponent(item.name)
            parts.append(item.value.map { name + "=" + Self.encodeQueryComponent($0) } ?? name)
        }
        return parts.isEmpty ? result : result + "?" + parts.joined(separator: "&")
    }

    /// Path characters pass through (including existing %-escapes, so callers may pre-encode).
    private static let pathAllowed = CharacterSet.urlPathAllowed.union(CharacterSet(charactersIn: "%"))
    /// Query names and values: everything that could end or split a pair (`&`, `=`, `+`, `#`) is escaped.
    private static let queryAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#;"))

    static func encodeQueryComponent(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? string
    }
}
