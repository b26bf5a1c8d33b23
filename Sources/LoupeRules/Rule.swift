import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// One rule: which requests it acts on (a filter, as `f` and `--filter` write it), what it does, and how long.
///
/// ```swift
/// let rule = try Rule(name: "getUser down", match: "~op getUser", action: .fault(.status(503)))
/// ```
public struct Rule: Sendable, Hashable, Identifiable {
    /// Unique within a book; events, logs and `~rule NAME` use it.
    public var name: String
    /// The filter as written.
    public var match: String
    /// The filter parsed once. Terms about the response (`~c`, `~dur`, `~e`, `~cb`) never match: a rule decides
    /// before the response exists. `~att N` is the number of the attempt being sent.
    public let filter: TraceFilter
    public var action: RuleAction
    public var limits: RuleLimits

    public var id: String { name }

    /// A rule; throws the filter's ``TraceFilterError`` when `match` does not parse.
    public init(name: String, match: String, action: RuleAction, limits: RuleLimits = RuleLimits()) throws {
        self.name = name
        self.match = match
        // A breaker rule acts on no request: it may leave `match` empty.
        self.filter = try RuleFilterParsing.parse(match.isEmpty && action.isBreaker ? "~u ." : match)
        self.action = action
        self.limits = limits
    }
}

/// Limits on a rule: how many times, until when, whether on, and how often it fires.
public struct RuleLimits: Sendable, Hashable {
    /// Acts at most this many times (then stays, spent); `nil` is no limit.
    public var times: Int?
    /// Acts only before this moment.
    public var until: Date?
    /// A disabled rule matches nothing.
    public var enabled: Bool
    /// The chance, in `0...1`, that a matching request is acted on (drawn from the book's seeded source).
    public var probability: Double

    public init(times: Int? = nil, until: Date? = nil, enabled: Bool = true, probability: Double = 1) {
        self.times = times
        self.until = until
        self.enabled = enabled
        self.probability = min(1, max(0, probability))
    }
}

/// What a rule does to a request it matches.
public enum RuleAction: Sendable, Hashable {
    /// Answers without reaching the network.
    case mock(RuleMock)
    /// Misbehaves as the wire would (``TransportFault``).
    case fault(TransportFault)
    /// Changes the request before it is sent.
    case rewrite(RuleRewrite)
    /// Holds the request before it is sent and/or its response before the app gets it, until the viewer decides.
    case breakpoint(RuleBreakpoint)
    /// Forces a circuit key open or closed, or gives it back to the breaker (acts when the rule is enabled or
    /// added, and gives the key back when it is disabled or removed; it matches no request).
    case breaker(key: String, override: BreakerOverride)

    /// The word used in events, logs and the rules file.
    public var word: String {
        switch self {
        case .mock: "mock"
        case .fault: "fault"
        case .rewrite: "rewrite"
        case .breakpoint: "breakpoint"
        case .breaker: "breaker"
        }
    }
}

/// A mocked answer.
public struct RuleMock: Sendable, Hashable {
    public var status: Int
    public var headers: [TraceHeader]
    public var body: Data
    /// The recorded exchange it was made from (`#N`), shown in events.
    public var recordedFrom: Int?

    public init(status: Int = 200, headers: [TraceHeader] = [], body: Data = Data(), recordedFrom: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.recordedFrom = recordedFrom
    }

    var response: RawResponse {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return RawResponse(status: HTTPResponse.Status(code: status), headerFields: fields, body: body)
    }
}

/// Changes to a request.
public struct RuleRewrite: Sendable, Hashable {
    /// Header fields set (replacing any of the same name).
    public var setHeaders: [TraceHeader]
    /// Header names removed.
    public var removeHeaders: [String]
    /// Sends to another base URL (map remote): scheme and authority replaced, its path prefixed to the request's.
    public var baseURL: URL?

    public init(setHeaders: [TraceHeader] = [], removeHeaders: [String] = [], baseURL: URL? = nil) {
        self.setHeaders = setHeaders
        self.removeHeaders = removeHeaders
        self.baseURL = baseURL
    }

    func apply(to request: HTTPRequest) -> HTTPRequest {
        var request = request
        for name in removeHeaders {
            if let field = HTTPField.Name(name) { request.headerFields[field] = nil }
        }
        for header in setHeaders {
            if let field = HTTPField.Name(header.name) { request.headerFields[field] = header.value }
        }
        if let baseURL, let scheme = baseURL.scheme, let host = baseURL.host {
            request.scheme = scheme
            request.authority = baseURL.port.map { "\(host):\($0)" } ?? host
            let prefix = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
            request.path = prefix + (request.path ?? "/")
        }
        return request
    }
}

/// Which side of an exchange a breakpoint holds.
public struct RuleBreakpoint: Sendable, Hashable {
    public var request: Bool
    public var response: Bool
    public init(request: Bool = true, response: Bool = false) {
        self.request = request
        self.response = response
    }
}

/// A manual setting of one circuit key.
public enum BreakerOverride: String, Sendable, Hashable, CaseIterable {
    /// Forced open: every call short-circuits.
    case open
    /// Forced closed (the breaker disabled for the key): every call goes through.
    case closed
    /// Given back to the breaker.
    case release
}
