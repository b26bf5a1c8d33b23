import Foundation
import HTTPTypes
import LoupeTrace

/// A request as matchers compare it: the live one on its way out, or one the cassette recorded.
///
/// Both sides are in the cassette's stored form: secrets replaced by their placeholders (`<TOKEN>`) and the
/// redaction policy applied, so a redacted header or query item compares equal on both sides and no secret ever
/// reaches a matcher's verdict or an error message.
public struct CassetteRequest: Sendable, Hashable {
    /// The method, as sent (`GET`).
    public var method: String
    /// The absolute URL, query included.
    public var url: String
    /// The header fields, in order, names as sent.
    public var headers: [TraceHeader]
    /// The body bytes (empty when there was none).
    public var body: Data

    /// A request from its parts.
    public init(method: String, url: String, headers: [TraceHeader] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The request a recorded exchange describes.
    public init(_ exchange: TraceExchange) {
        self.init(method: exchange.method, url: exchange.url, headers: exchange.requestHeaders,
                  body: exchange.requestBody?.data ?? Data())
    }

    /// The URL's path as sent (percent-encoded), `/` when empty.
    public var path: String {
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    }

    /// The query items (names and values decoded), in order; empty without a query.
    public var queryItems: [URLQueryItem] {
        URLComponents(string: url)?.queryItems ?? []
    }

    /// The host and port (`api.example.com`, `127.0.0.1:8080`), lowercased; empty when the URL has no host.
    public var authority: String {
        guard let components = URLComponents(string: url), let host = components.host else { return "" }
        return components.port.map { "\(host.lowercased()):\($0)" } ?? host.lowercased()
    }

    /// The path and query, as the explainer lists recorded requests.
    public var pathAndQuery: String {
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// Every value of the header `name` (any case), in order.
    public func values(ofHeader name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}
