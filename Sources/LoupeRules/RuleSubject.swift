import Foundation
import HTTPTypes
import LoupeTrace

/// What a rule can see of a request before it is sent, and the filter language evaluated against it.
///
/// Only the terms about the request mean anything here; terms about the response or the recorded exchange
/// (`~c`, `~dur`, `~e`, `~cb`, `~replay`, `~src`, `~rule`) are false, since a rule decides before any of them exist.
/// Text (the URL, header lines) is built only when a term needs it, so a rule on `~op` or `~m` costs a comparison.
/// This is the reference matcher: the book decides with it, once ``RuleIndex`` (the compiled form, which must agree
/// with it) has said that some rule may match.
public struct RuleSubject: Sendable {
    public var request: HTTPRequest
    public var body: Data?
    public var operation: String
    /// 1 for the first attempt of the exchange.
    public var attempt: Int

    public init(request: HTTPRequest, body: Data?, operation: String, attempt: Int) {
        self.request = request
        self.body = body
        self.operation = operation
        self.attempt = attempt
    }

    var url: String { Self.url(of: request) }

    var host: String { Self.host(of: request) }

    /// The URL `~u` searches.
    static func url(of request: HTTPRequest) -> String {
        "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    /// The host `~d` searches: the authority without its port (inside the brackets of an IPv6 literal).
    static func host(of request: HTTPRequest) -> String {
        let authority = request.authority ?? ""
        if authority.hasPrefix("[") { return String(authority.prefix { $0 != "]" }.dropFirst()) }
        return String(authority.prefix { $0 != ":" })
    }

    /// Whether `filter` matches this request.
    public func matches(_ filter: TraceFilter) -> Bool {
        switch filter {
        case .method(let method): return FilterText.sameBytes(request.method.rawValue, method)
        case .host(let host): return FilterText.containsBytes(FilterText.asciiLowercased(self.host), host)
        case .url(let pattern): return pattern.matches(url)
        case .header(let pattern):
            return pattern.matches(FilterText.headerLines(request.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) }))
        case .body(let pattern), .requestBody(let pattern): return body.map { pattern.matches(FilterText.bodyText($0)) } ?? false
        case .operation(let name): return FilterText.sameBytes(operation, name)
        case .attempts(let comparison): return comparison.holds(for: attempt)
        case .status, .duration, .circuit, .error, .replay, .served, .source, .rule, .grpc, .responseBody, .message, .errorText,
             .drift, .exchanges, .since, .until: return false
        case .not(let inner): return !matches(inner)
        case .and(let left, let right): return matches(left) && matches(right)
        case .or(let left, let right): return matches(left) || matches(right)
        }
    }
}
