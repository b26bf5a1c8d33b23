import Foundation
import Loupe
@testable import LoupeTrace
@testable import LoupeFilter
import Testing

@Suite("TraceFilter matching in memory")
struct TraceFilterMatchingTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A retried POST that failed with 503 after a half-open probe, with a secret in its response body.
    static let failed = TraceExchange(
        id: UUID(), operation: "createUser", method: "POST", url: "https://API.Example.com/v1/users?page=2",
        startedAt: start, endedAt: start.addingTimeInterval(0.75), outcome: .httpError, status: 503,
        requestHeaders: [TraceHeader(name: "Content-Type", value: "application/json")],
        requestBody: TraceBody(data: Data(#"{"name":"ada"}"#.utf8), size: 14, isTruncated: false),
        responseHeaders: [TraceHeader(name: "Retry-After", value: "3")],
        responseBody: TraceBody(data: Data("the secret is 42".utf8), size: 16, isTruncated: false),
        attempts: [
            TraceAttempt(number: 1, startedAt: start, status: 503, circuitState: "closed"),
            TraceAttempt(number: 2, startedAt: start, status: 503, circuitState: "half-open"),
        ])

    /// A quick GET replay that succeeded.
    static let replayed = TraceExchange(
        id: UUID(), operation: "listUsers", method: "GET", url: "https://cdn.example.org/v1/users",
        startedAt: start, endedAt: start.addingTimeInterval(0.125), outcome: .success, status: 200,
        attempts: [TraceAttempt(number: 1, startedAt: start, status: 200, circuitState: "closed")], replayOf: UUID())

    /// Rejected by an open breaker: no status, no duration, no attempt.
    static let rejected = TraceExchange(
        id: UUID(), operation: "listUsers", method: "GET", url: "https://cdn.example.org/v1/users",
        startedAt: start, outcome: .shortCircuited, error: "circuit open")

    private func which(_ text: String) throws -> [String] {
        let filter = try TraceFilter.parse(text)
        return [("failed", Self.failed), ("replayed", Self.replayed), ("rejected", Self.rejected)]
            .filter { filter.matches($0.1) }.map(\.0)
    }

    @Test("field terms", arguments: [
        ("~m POST", ["failed"]), ("~m get", ["replayed", "rejected"]),
        ("~c 503", ["failed"]), ("~c 5xx", ["failed"]), ("~c 2xx", ["replayed"]), ("~c 100-599", ["failed", "replayed"]),
        ("~d example.com", ["failed"]), ("~d EXAMPLE", ["failed", "replayed", "rejected"]), ("~d cdn.", ["replayed", "rejected"]),
        ("~op listUsers", ["replayed", "rejected"]), ("~op list", []),
        ("~dur >500ms", ["failed"]), ("~dur <=0.125s", ["replayed"]), ("~dur >=0s", ["failed", "replayed"]),
        ("~att >1", ["failed"]), ("~att 0", ["rejected"]), ("~att <2", ["replayed", "rejected"]),
        ("~e", ["failed", "rejected"]), ("~replay", ["replayed"]),
    ])
    func fields(text: String, expected: [String]) throws {
        #expect(try which(text) == expected)
    }

    @Test("breaker terms: open includes short-circuited exchanges", arguments: [
        ("~cb open", ["rejected"]), ("~cb half-open", ["failed"]), ("~cb closed", ["failed", "replayed"]),
        ("~cb forced-open", []), ("!~cb closed", ["rejected"]),
    ])
    func breaker(text: String, expected: [String]) throws {
        #expect(try which(text) == expected)
    }

    @Test("regex terms search URLs, header lines and body text", arguments: [
        ("~u users\\?page=\\d", ["failed"]), ("users", ["failed", "replayed", "rejected"]), ("~u ^https://api", ["failed"]),
        ("~h \"^retry-after: 3$\"", ["failed"]), ("~h content-type", ["failed"]), ("~h ^x-", []),
        ("~b secret", ["failed"]), ("~b SECRET", []), ("~b \"(?i)SECRET\"", ["failed"]), ("~b ada", ["failed"]),
    ])
    func regexes(text: String, expected: [String]) throws {
        #expect(try which(text) == expected)
    }

    @Test("combinations follow the precedence rules")
    func combinations() throws {
        #expect(try which("~c 5xx | ~b secret") == ["failed"])
        #expect(try which("~m GET & !~e") == ["replayed"])
        #expect(try which("~m GET !~e | ~att >1") == ["failed", "replayed"])
        #expect(try which("!(~e | ~replay)") == [])
        #expect(try which("~op listUsers (~cb open | ~replay)") == ["replayed", "rejected"])
        // No status and no duration never match a comparison, and their negation matches.
        #expect(try which("!~c 100-599") == ["rejected"])
        #expect(try which("!~dur >=0s") == ["rejected"])
    }
}
