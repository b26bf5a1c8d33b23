import Foundation
import Loupe
import LoupeTrace

/// Exchanges with every awkward value a filter must handle: no status, no duration, no attempts, empty bodies,
/// upper-case hosts, lower-case methods, non-ASCII text, every breaker state, replays.
enum TraceCorpus {
    static let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "get"]
    static let hosts = ["api.example.com", "API.Example.COM", "cdn.example.org", "example.com.evil.test", "localhost", "xn--caf-dma.test"]
    static let paths = ["/v1/users", "/v1/users/42", "/v1/orders?page=2", "/health", "/v2/search?q=caf%C3%A9", "/"]
    static let operations = ["listUsers", "getUser", "createOrder", "search", "health", "GET /v1/users", "café"]
    static let statuses: [Int?] = [nil, 200, 201, 204, 304, 404, 429, 500, 502, 503, 504]
    static let circuitStates: [String?] = [nil, "closed", "open", "half-open", "forced-open", "disabled", "Open"]
    static let bodies: [String?] = [nil, "", #"{"ok":true}"#, "the secret is 42", "SECRET", "naïve café", "line1\nline2"]
    static let headerSets: [[TraceHeader]] = [
        [],
        [TraceHeader(name: "Content-Type", value: "application/json")],
        [TraceHeader(name: "Retry-After", value: "3"), TraceHeader(name: "X-Request-ID", value: "abc-123")],
        [TraceHeader(name: "authorization", value: "[REDACTED]"), TraceHeader(name: "Accept", value: "*/*")],
    ]
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func make(count: Int, seed: UInt64) -> [TraceExchange] {
        var random = SeededGenerator(seed: seed)
        var made: [TraceExchange] = []
        for index in 0..<count {
            let started = start.addingTimeInterval(Double(index))
            // Durations in 1/64 s steps are exact in binary, so a stored duration equals the computed one.
            let duration: Double? = random.next() % 8 == 0 ? nil : Double(random.next() % 256) / 64
            let status = statuses.randomElement(using: &random)!
            let attemptCount = Int(random.next() % 4)
            let attempts = (0..<attemptCount).map { number in
                TraceAttempt(number: number + 1, startedAt: started, status: status,
                             circuitState: circuitStates.randomElement(using: &random)!)
            }
            let outcome: ExchangeOutcome = attemptCount == 0 && random.next() % 2 == 0
                ? .shortCircuited : ExchangeOutcome.allCases.randomElement(using: &random)!
            let events = (0..<Int(random.next() % 3)).map { _ in
                TraceEvent(kind: ["circuit", "retry", "throttle-wait"].randomElement(using: &random)!, at: started,
                           message: "m", attributes: ["from": "closed", "to": "open"])
            }
            made.append(TraceExchange(
                id: UUID(), operation: operations.randomElement(using: &random)!,
                method: methods.randomElement(using: &random)!,
                url: "https://" + hosts.randomElement(using: &random)! + paths.randomElement(using: &random)!,
                startedAt: started, endedAt: duration.map { started.addingTimeInterval($0) }, outcome: outcome,
                status: status, error: outcome == .success ? nil : "failed",
                requestHeaders: headerSets.randomElement(using: &random)!,
                requestBody: body(bodies.randomElement(using: &random)!),
                responseHeaders: headerSets.randomElement(using: &random)!,
                responseBody: body(bodies.randomElement(using: &random)!),
                attempts: attempts, events: events, replayOf: random.next() % 5 == 0 ? UUID() : nil))
        }
        return made
    }

    private static func body(_ text: String?) -> TraceBody? {
        text.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count * 3, isTruncated: false) }
    }

    /// Random filters over the corpus's vocabulary, as text, nested up to `depth`.
    static func filterText(depth: Int, using random: inout SeededGenerator) -> String {
        if depth > 0 && random.next() % 3 != 0 {
            let left = filterText(depth: depth - 1, using: &random)
            let right = filterText(depth: depth - 1, using: &random)
            switch random.next() % 5 {
            case 0: return "(\(left) | \(right))"
            case 1: return "\(left) & \(right)"
            case 2: return "\(left) \(right)"
            case 3: return "!(\(left))"
            default: return "(\(left)) | !\(right)"
            }
        }
        return atoms.randomElement(using: &random)!
    }

    static let atoms = [
        "~m GET", "~m post", "~m DELETE", "~c 200", "~c 503", "~c 5xx", "~c 2xx", "~c 300-429", "~d example.com",
        "~d EXAMPLE.COM", "~d api.", "~d café", "~u users", "~u \"page=\\d\"", "~u ^https://cdn", "users", "~h retry-after",
        "~h \"^x-request-id: abc\"", "~h \"^$\"", "~b secret", "~b SECRET", "~b \"^$\"", "~b \"(?i)secret\"", "~b café",
        "~b \"line1$\"", "~op listUsers", "~op café", "~op \"GET /v1/users\"", "~dur >500ms", "~dur <=1s", "~dur =0.5s",
        "~dur >=2s", "~att >1", "~att 0", "~att <=1", "~att >=2", "~att 3", "~att >0", "~cb open", "~cb half-open", "~cb closed", "~cb forced-open",
        "~cb disabled", "~e", "~replay", "~since 2023-11-14T22:16:00Z", "~until \"2023-11-14 23:14:40.5+01:00\"",
    ]
}
