import Foundation
import Loupe
import LoupeTrace

/// A request as serving compares it: the live one a client sent, or one a recording holds.
///
/// Both sides are in the stored form (the recorder's redaction applied to the live one too), so a redacted query
/// item or header compares equal on both sides and no secret reaches a miss's explanation.
package struct ServeRequest: Sendable, Hashable {
    /// The method, as sent (`GET`).
    package var method: String
    /// The path as sent (percent-encoded), `/` when empty.
    package var path: String
    /// The query as sent (percent-encoded), without `?`; empty without one.
    package var query: String
    /// The header fields, in order.
    package var headers: [TraceHeader]
    /// The body bytes (empty when there was none).
    package var body: Data
    /// Whether it opens a WebSocket (a live upgrade request; a recorded WebSocket conversation): only such requests
    /// and recordings match each other.
    package var webSocket: Bool

    package init(method: String, path: String, query: String = "", headers: [TraceHeader] = [], body: Data = Data(),
                 webSocket: Bool = false) {
        self.webSocket = webSocket
        self.method = method
        self.path = path.isEmpty ? "/" : path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The request a recorded exchange describes (its URL's path and query; the host is left out, so a recording
    /// made against any server answers on this one).
    package init(_ exchange: TraceExchange) {
        let (path, query) = Self.split(exchange.pathAndQuery)
        self.init(method: exchange.method, path: path, query: query, headers: exchange.requestHeaders,
                  body: exchange.requestBody?.data ?? Data(), webSocket: exchange.stream?.kind == .webSocket)
    }

    /// `/a/b?x=1` as `("/a/b", "x=1")`.
    package static func split(_ pathAndQuery: String) -> (path: String, query: String) {
        guard let mark = pathAndQuery.firstIndex(of: "?") else { return (pathAndQuery, "") }
        return (String(pathAndQuery[..<mark]), String(pathAndQuery[pathAndQuery.index(after: mark)...]))
    }

    /// What the index files the request under: method and path (a WebSocket's apart from plain requests').
    var key: String { (webSocket ? "WS " : "") + method + " " + path }

    /// The path and query, as a miss lists recordings.
    package var pathAndQuery: String { query.isEmpty ? path : path + "?" + query }

    /// The query's items as `name=value` texts, decoded and sorted: two queries with the same items in another
    /// order compare equal (repeated items count).
    var queryItems: [String] {
        guard !query.isEmpty else { return [] }
        var components = URLComponents()
        components.percentEncodedQuery = query
        guard let items = components.queryItems else { return [query] }
        return items.map { item in item.value.map { item.name + "=" + $0 } ?? item.name }.sorted()
    }

    /// The request with only the headers named in `names` (any case): all that matching compares when those are
    /// the chosen headers (`--match-header`), so an index of many recordings does not hold the rest.
    package func keepingHeaders(_ names: [String]) -> ServeRequest {
        var kept = self
        kept.headers = headers.filter { header in names.contains { $0.caseInsensitiveCompare(header.name) == .orderedSame } }
        return kept
    }

    /// Every value of the header `name` (any case), in order.
    func values(ofHeader name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}
