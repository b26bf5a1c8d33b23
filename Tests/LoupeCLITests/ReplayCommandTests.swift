import ArgumentParser
import Foundation
import HTTPTypes
import Loupe
@testable import loupe
import LoupeTrace
import LoupeFilter
import LoupeReplay
import Testing

@Suite("loupe replay: arguments, confirmation, progress, sources")
struct ReplayCommandTests {
    static let replay = ["replay", "/nonexistent/traces.sqlite", "--id", "1"]

    /// The `CommandFailure` `body` throws, as (exit code, message).
    static func failure(_ body: () throws -> Void) -> (Int32, String)? {
        do {
            try body()
            return nil
        } catch let failure as CommandFailure {
            return (failure.code, failure.message)
        } catch {
            return nil
        }
    }

    @Test("bad numbers and options are one loupe: line with exit 2")
    func usage() {
        UsageErrorTests.expectOneLine(Self.replay + ["--times", "0"], "loupe: --times: expected a whole number from 1 to 100000, got '0'")
        UsageErrorTests.expectOneLine(Self.replay + ["--times", "-3"], "loupe: --times: expected a whole number from 1 to 100000, got '-3'")
        UsageErrorTests.expectOneLine(Self.replay + ["--concurrency", "257"], "loupe: --concurrency: expected a whole number from 1 to 256, got '257'")
        for value in ["0", "inf", "nan", "-1", "1e300", "abc"] {
            UsageErrorTests.expectOneLine(Self.replay + ["--rate", value],
                                          "loupe: --rate: expected a rate in requests per second from 0.01 to 100000, got '\(value)'")
        }
        UsageErrorTests.expectOneLine(Self.replay + ["--diff", "--noise-runs", "21"], "loupe: --noise-runs: expected a whole number from 1 to 20, got '21'")
        UsageErrorTests.expectOneLine(Self.replay + ["-H", "no colon"], "loupe: -H: expected a header 'Name: value', got 'no colon'")
        UsageErrorTests.expectOneLine(Self.replay + ["-H", "X-A: b\r\nX-B: c"])
        UsageErrorTests.expectOneLine(["replay", "s.sqlite"], "loupe: give --id ID or --filter EXPR (one of them)")
        UsageErrorTests.expectOneLine(Self.replay + ["--filter", "~c 200"], "loupe: give --id ID or --filter EXPR (one of them)")
        UsageErrorTests.expectOneLine(Self.replay + ["--ignore", "$.a"], "loupe: --ignore and --noise-runs need --diff")
        UsageErrorTests.expectOneLine(Self.replay + ["--noise-runs", "2"], "loupe: --ignore and --noise-runs need --diff")
        UsageErrorTests.expectOneLine(Self.replay + ["--diff", "--ignore", "items.id"],
                                      "loupe: --ignore 'items.id': expected a JSON path ($.a.b, $.items[*].id), header:NAME, status or body")
        UsageErrorTests.expectOneLine(Self.replay + ["--raw", "--retries", "2"],
                                      "loupe: --raw sends without middleware: it cannot take --retries, --deadline, --bearer, --basic or --breaker")
        UsageErrorTests.expectOneLine(Self.replay + ["--raw", "--bearer", "t"])
        UsageErrorTests.expectOneLine(Self.replay + ["--base-url", "ftp://example.test"], "loupe: --base-url: 'ftp://example.test' is not an absolute http(s) URL")
        UsageErrorTests.expectOneLine(Self.replay + ["--base-url", "http://example.test:99999"],
                                      "loupe: --base-url: 'http://example.test:99999': port 99999 is out of range (1 to 65535)")
        UsageErrorTests.expectOneLine(Self.replay + ["--base-url", "http://example.test/v2?x=1"],
                                      "loupe: --base-url takes scheme://host[:port] only (the recorded path and query are kept): 'http://example.test/v2?x=1'")
    }

    @Test("values in range parse into the plan")
    func plan() throws {
        let command = try #require(try LoupeCommand.parseAsRoot(Self.replay + [
            "--times", "20", "--concurrency", "4", "--rate", "0.5", "--base-url", "https://staging.example.test:8443/",
            "-H", "Authorization: Bearer x", "-H", "X-Env:staging", "--diff", "--ignore", "$.meta.generatedAt",
            "--ignore", "header:ETag", "--noise-runs", "2", "--raw", "--timeout", "2",
        ]) as? ReplayCommand)
        let original = TraceExchange(id: UUID(), operation: "op", method: "GET", url: "http://a.test/x", startedAt: Date(), outcome: .success)
        let plan = try command.makePlan([original])
        #expect(plan.times == 20 && plan.concurrency == 4 && plan.rate == 0.5 && plan.noiseRuns == 2 && plan.diff)
        #expect(plan.baseURL?.absoluteString == "https://staging.example.test:8443/")
        #expect(plan.headers[.authorization] == "Bearer x" && plan.headers[HTTPField.Name("X-Env")!] == "staging")
        #expect(plan.ignore.map(\.description) == ["$.meta.generatedAt", "header:ETag"])
        #expect(plan.timeout == .seconds(2))
        #expect(plan.jobs == [ReplayPlan.Job(original: 0, isNoiseRun: false)] + Array(repeating: .init(original: 0, isNoiseRun: false), count: 19)
                + [.init(original: 0, isNoiseRun: true), .init(original: 0, isNoiseRun: true)])
        let huge = try #require(try LoupeCommand.parseAsRoot(Self.replay + ["--times", "100000"]) as? ReplayCommand)
        #expect(Self.failure { _ = try huge.makePlan(Array(repeating: original, count: 11)) }?.0 == 2)
    }

    static func exchange(_ method: String, key: String? = nil) -> TraceExchange {
        TraceExchange(id: UUID(), operation: "op", method: method, url: "http://a.test/orders?x=1", startedAt: Date(), outcome: .success,
                      requestHeaders: key.map { [TraceHeader(name: "Idempotency-Key", value: $0)] } ?? [])
    }

    @Test("requests not safe to repeat: asked on a terminal, refused without one unless --yes")
    func confirmation() throws {
        let post = Self.exchange("POST")
        func check(_ exchanges: [TraceExchange], times: Int = 1, yes: Bool = false, interactive: Bool, answer: String? = nil) throws -> [String] {
            var asked: [String] = []
            try ReplayConfirmation.check(exchanges, times: times, yes: yes, interactive: interactive) { question in
                asked.append(question)
                return answer
            }
            return asked
        }
        #expect(try check([Self.exchange("GET"), Self.exchange("HEAD"), Self.exchange("OPTIONS")], interactive: false) == [])
        // Idempotent is not safe (issue 43.2): a PUT, a DELETE, a POST with an Idempotency-Key all need --yes.
        for unsafe in [Self.exchange("PUT"), Self.exchange("DELETE"), Self.exchange("POST", key: "k1")] {
            #expect(Self.failure { _ = try check([unsafe], interactive: false) } ?? (0, "") == (2, "\(unsafe.method) http://a.test/orders?x=1: \(unsafe.method) may change the server (only GET, HEAD and OPTIONS replay without asking); pass --yes to replay it without asking"))
        }
        #expect(try check([post], yes: true, interactive: false) == [])
        #expect(Self.failure { _ = try check([post], interactive: false) } ?? (0, "") == (2, "POST http://a.test/orders?x=1: POST may change the server (only GET, HEAD and OPTIONS replay without asking); pass --yes to replay it without asking"))
        #expect(Self.failure { _ = try check([post, Self.exchange("PATCH"), Self.exchange("GET"), post, Self.exchange("POST", key: "[REDACTED]")], interactive: false) } ?? (0, "") == (2, "4 of the 5 selected requests are not safe to repeat (POST /orders?x=1, PATCH /orders?x=1, POST /orders?x=1, …); pass --yes to replay them without asking"))
        #expect(try check([post], times: 20, interactive: true, answer: " Y ") == [
            "loupe: POST http://a.test/orders?x=1: POST may change the server (only GET, HEAD and OPTIONS replay without asking). Send it again 20 times? [y/N] ",
        ])
        #expect(try check([post], interactive: true, answer: "yes").count == 1)
        for answer in [nil, "", "n", "no", "yess"] as [String?] {
            #expect(Self.failure { _ = try check([post], interactive: true, answer: answer) } ?? (0, "") == (1, "replay cancelled; nothing was sent"))
        }
    }

    @Test("the progress line")
    func progress() {
        var progress = ReplayProgress(total: 8)
        #expect(progress.line() == "[░░░░░░░░░░░░░░░░░░░░░░░░]  0/8")
        for status in [200, 200, 503] { progress.add(ReplayOutcome(originalID: UUID(), replayID: UUID(), status: status, duration: 0)) }
        progress.add(ReplayOutcome(originalID: UUID(), replayID: nil, errorKind: "connect failed", duration: 0))
        #expect(progress.line() == "[████████████░░░░░░░░░░░░]  4/8  200 ×2  503 ×1  1 error")
    }

    @Test("sources: a HAR file by name or content, its entries numbered in file order; selection errors")
    func sources() throws {
        let folder = NSTemporaryDirectory() + "loupe-cli-replay-source-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
              {"startedDateTime": "2024-01-01T00:00:00.000Z", "time": 5, "request": {"method": "GET", "url": "http://a.test/one",
               "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
               "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
               "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
               "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}},
              {"startedDateTime": "2024-01-01T00:00:01.000Z", "time": 5, "request": {"method": "POST", "url": "http://a.test/two",
               "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
               "response": {"status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
               "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
               "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}}]}}
            """
        let named = folder + "/capture.har"
        let unnamed = folder + "/capture.json"
        try har.write(toFile: named, atomically: true, encoding: .utf8)
        try har.write(toFile: unnamed, atomically: true, encoding: .utf8)
        #expect(ReplaySource.isHARFile(named) && ReplaySource.isHARFile(unnamed))
        let source = try ReplaySource.open(unnamed, redaction: RedactionPolicy())
        #expect(source.isHAR)
        #expect(try source.select(id: "#2", filter: nil).map(\.url) == ["http://a.test/two"])
        #expect(try source.select(id: nil, filter: TraceFilter.parse("~m GET")).map(\.url) == ["http://a.test/one"])
        #expect(Self.failure { _ = try source.select(id: "#3", filter: nil) } ?? (0, "") == (2, "no exchange #3 in \(unnamed)"))
        #expect(Self.failure { _ = try source.select(id: nil, filter: TraceFilter.parse("~m DELETE")) } ?? (0, "") == (2, "no exchange in \(unnamed) matches the filter"))
        let store = folder + "/traces.sqlite"
        try SQLiteTraceStore(path: store).close()
        #expect(!ReplaySource.isHARFile(store))
        #expect(try !ReplaySource.open(store, redaction: RedactionPolicy()).isHAR)
        #expect(ReplayCommand.samePath(store, folder + "/./traces.sqlite"))
    }
}

extension ReplayCommandTests {
    /// A replay of a request whose credential was redacted got a 401 without a word (issue 25.21).
    @Test("a redacted credential is warned about before sending, unless -H supplies it")
    func redactedCredentialWarning() {
        var signedIn = TraceExchange(id: UUID(), operation: "me", method: "GET", url: "https://api.example.com/me", startedAt: Date(),
                                     outcome: .success)
        signedIn.requestHeaders = [TraceHeader(name: "Authorization", value: RedactionPolicy.marker),
                                   TraceHeader(name: "X-Api-Key", value: RedactionPolicy.marker)]
        let plain = TraceExchange(id: UUID(), operation: "root", method: "GET", url: "https://api.example.com/", startedAt: Date(),
                                  outcome: .success)
        #expect(ReplayConfirmation.redactedWarning([signedIn], supplied: [])
                == "loupe: warning: Authorization, X-Api-Key were redacted in the recorded request and are left out; supply them with -H 'Authorization: …'")
        #expect(ReplayConfirmation.redactedWarning([signedIn, plain], supplied: ["authorization"])
                == "loupe: warning: X-Api-Key was redacted in 1 of the 2 recorded requests and is left out; supply it with -H 'X-Api-Key: …'")
        #expect(ReplayConfirmation.redactedWarning([signedIn], supplied: ["authorization", "x-api-key"]) == nil)
        #expect(ReplayConfirmation.redactedWarning([plain], supplied: []) == nil)
    }

    @Test("a redacted query value is warned about, and LOUPE_REPLAY_QUERY_<NAME> gives the plan its value (issue 43.6)")
    func redactedQueryWarning() throws {
        let keyed = TraceExchange(id: UUID(), operation: "items", method: "GET", url: "https://api.example.com/items?api_key=%5BREDACTED%5D",
                                  startedAt: Date(), outcome: .success)
        #expect(ReplayConfirmation.redactedWarning([keyed], supplied: [])
                == "loupe: warning: the query's api_key was redacted in the recorded request and is left out; supply it with LOUPE_REPLAY_QUERY_API_KEY")
        #expect(ReplayConfirmation.redactedWarning([keyed], supplied: [], suppliedQuery: ["api_key"]) == nil)
        let command = try #require(try LoupeCommand.parseAsRoot(Self.replay) as? ReplayCommand)
        #expect(try command.makePlan([keyed], environment: ["LOUPE_REPLAY_QUERY_API_KEY": "k-1"]).queryValues == ["api_key": "k-1"])
        #expect(try command.makePlan([keyed], environment: [:]).queryValues.isEmpty)
    }
}
