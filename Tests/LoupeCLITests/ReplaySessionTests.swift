import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
@testable import loupe
import LoupeTesting
import LoupeTrace
import LoupeFilter
import LoupeReplay
import Synchronization
import Testing

/// `loupe replay`'s run in-process: a real SQLite store in a temporary folder, an in-process transport.
@Suite("loupe replay: runs, records, compares")
struct ReplaySessionTests {
    /// A store with one recorded `GET /items` answered 200 with `body`.
    static func recordedStore(body: String = #"{"items": [{"id": 1, "price": 10}], "requestId": "r0"}"#, status: Int = 200,
                              method: String = "GET") throws -> (SQLiteTraceStore, TraceExchange, String) {
        let folder = NSTemporaryDirectory() + "loupe-cli-replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try SQLiteTraceStore(path: folder + "/traces.sqlite")
        let original = TraceExchange(
            id: UUID(), operation: "GET /items", method: method, url: "http://api.example.test/items?page=1",
            startedAt: Date(), endedAt: Date(), outcome: .success, status: status,
            requestHeaders: [TraceHeader(name: "Accept", value: "application/json")],
            responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json"), TraceHeader(name: "Date", value: "then")],
            responseBody: TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false))
        try store.write([original])
        return (store, try #require(try store.exchange(id: original.id)), folder)
    }

    /// Runs `plan` against `answer` (given the request number, from 1), recording into `store`.
    /// `hold` runs before each answer (given the request number): a test's way to keep a request in flight.
    static func run(_ plan: ReplayPlan, store: SQLiteTraceStore,
                    answer: @escaping @Sendable (Int, HTTPRequest) throws -> RawResponse,
                    hold: @escaping @Sendable (Int) async throws -> Void = { _ in }) async -> (ReplayReport, [HTTPRequest]) {
        let seen = Mutex<[HTTPRequest]>([])
        let transport = MockTransport { request, _, _ in
            let number = seen.withLock { $0.append(request); return $0.count }
            let response = try answer(number, request)
            try await hold(number)
            return response
        }
        let inspector = NetworkTraceInspector(store: store)
        let client = Client(baseURL: URL(string: "http://api.example.test")!, transport: transport, observer: inspector)
        let result = await ReplaySession.run(plan, client: client, recorder: inspector, store: store)
        await inspector.shutdown()
        return (ReplayReport(plan: plan, result: result), seen.withLock { $0 })
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> RawResponse {
        RawResponse(status: status, headerFields: [.contentType: "application/json", .date: "now"], body: Data(text.utf8))
    }

    @Test("--times 20 --concurrency 4: twenty new exchanges, each a replay of the original, the original untouched")
    func repeats() async throws {
        let (store, original, folder) = try Self.recordedStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gauge = Mutex((now: 0, peak: 0))
        var plan = ReplayPlan(originals: [original])
        plan.times = 20
        plan.concurrency = 4
        plan.headers = [HTTPField.Name("X-Replay")!: "yes"]
        let (report, requests) = await Self.run(plan, store: store) { _, _ in
            gauge.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            defer { gauge.withLock { $0.now -= 1 } }
            return Self.json(#"{"items": []}"#)
        }
        #expect(requests.count == 20)
        #expect(requests.allSatisfy { $0.url?.absoluteString == "http://api.example.test/items?page=1" && $0.headerFields[HTTPField.Name("X-Replay")!] == "yes" })
        #expect(gauge.withLock { $0.peak } <= 4)
        let replays = try store.exchanges(matching: TraceFilter.parse("~replay"), limit: 100)
        #expect(replays.count == 20)
        #expect(replays.allSatisfy { $0.replayOf == original.id })
        #expect(try store.exchange(id: original.id) == original)
        #expect(report.succeeded)
        #expect(report.text[1...2] == ["Statuses: 200 ×20", "Errors: none"])
        #expect(report.text[0].hasPrefix("Replayed 20 requests (1 exchange × 20) in "))
        #expect(report.text[0].hasSuffix(", concurrency 4"))
    }

    @Test("--diff: a changed field fails the run with its path; --ignore leaves it out")
    func diff() async throws {
        let (store, original, folder) = try Self.recordedStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plan = ReplayPlan(originals: [original])
        plan.diff = true
        plan.times = 2
        let changed: @Sendable (Int, HTTPRequest) -> RawResponse = { _, _ in Self.json(#"{"items": [{"id": 1, "price": 12}], "requestId": "r0"}"#) }
        let (report, _) = await Self.run(plan, store: store, answer: changed)
        #expect(!report.succeeded)
        #expect(report.differingCount == 2)
        let diffLines = Array(report.text.drop { !$0.hasPrefix("#1 ") })
        #expect(diffLines == [
            "#1 GET http://api.example.test/items?page=1: 2 of 2 replays differ",
            "  replay #2 and 1 more like it:",
            "    $.items[0].price: 10 → 12",
            "Diff: 2 of 2 replays differ from the recording.",
        ])
        plan.ignore = [try DiffPattern("$.items[*].price")]
        let (ignored, _) = await Self.run(plan, store: store, answer: changed)
        #expect(ignored.succeeded)
        #expect(ignored.text.last == "Diff: all 2 replays answer as recorded (noise and volatile headers aside); 2 differences left out by --ignore.")
    }

    @Test("--noise-runs: a field that changes on every call is noise, reported and not counted")
    func noise() async throws {
        let (store, original, folder) = try Self.recordedStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plan = ReplayPlan(originals: [original])
        plan.diff = true
        let fresh: @Sendable (Int, HTTPRequest) -> RawResponse = { number, _ in
            Self.json(#"{"items": [{"id": 1, "price": 10}], "requestId": "r\#(number)"}"#)
        }
        let (plain, _) = await Self.run(plan, store: store, answer: fresh)
        #expect(!plain.succeeded)
        #expect(plain.text.contains(#"    $.requestId: "r0" → "r1""#))
        plan.noiseRuns = 2
        let (aware, requests) = await Self.run(plan, store: store, answer: fresh)
        #expect(requests.count == 3)
        #expect(aware.succeeded)
        #expect(Array(aware.text.drop { !$0.hasPrefix("#1 ") }) == [
            "#1 GET http://api.example.test/items?page=1: answers as recorded",
            "  noise (changed between identical requests, not counted): $.requestId",
            "Diff: the replay answers as recorded (noise and volatile headers aside).",
        ])
        #expect(aware.text[0].hasPrefix("Replayed 3 requests (1 exchange × 1, plus 2 noise runs each) in "))
    }

    @Test("failures: HTTP errors fail a plain replay, but not a diff that finds the status recorded; transport errors always")
    func failures() async throws {
        let (store, original, folder) = try Self.recordedStore(body: #"{"error": "down"}"#, status: 503)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plan = ReplayPlan(originals: [original])
        let unavailable: @Sendable (Int, HTTPRequest) -> RawResponse = { _, _ in Self.json(#"{"error": "down"}"#, status: .serviceUnavailable) }
        let (plain, _) = await Self.run(plan, store: store, answer: unavailable)
        #expect(!plain.succeeded && plain.failedCount == 1)
        plan.diff = true
        let (compared, _) = await Self.run(plan, store: store, answer: unavailable)
        #expect(compared.succeeded)
        plan.times = 3
        let (refused, _) = await Self.run(plan, store: store) { _, _ in throw TransportError(.connectFailed, "refused") }
        #expect(!refused.succeeded && refused.failedCount == 3)
        #expect(refused.text.contains("Errors: 3 (connect failed ×3)"))
        #expect(refused.text.contains("  failed ×3: #1 GET http://api.example.test/items?page=1: connect failed: refused"))
        #expect(refused.text.contains("    status: 503 → none"))
    }

    @Test("--json: the documented shape")
    func jsonShape() async throws {
        let (store, original, folder) = try Self.recordedStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plan = ReplayPlan(originals: [original])
        plan.diff = true
        plan.noiseRuns = 1
        plan.times = 2
        let (report, _) = await Self.run(plan, store: store) { number, _ in
            Self.json(#"{"items": [{"id": 1, "price": \#(number == 3 ? 12 : 10)}], "requestId": "r\#(number)"}"#)
        }
        let text = try Formatting.json(ReplayReportJSON(report))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["requests", "originals", "times", "noiseRuns", "concurrency", "elapsedSeconds",
                                     "requestsPerSecond", "statuses", "errors", "latencyMs", "failed", "interrupted", "differing", "replays"])
        #expect(object["requests"] as? Int == 3)
        #expect(object["differing"] as? Int == 0)
        let replays = try #require(object["replays"] as? [[String: Any]])
        #expect(replays.map { $0["noiseRun"] as? Bool } == [false, false, true])
        #expect(replays[0]["same"] as? Bool == true)
        #expect(replays[2]["same"] == nil)
        let noise = try #require(replays[1]["noise"] as? [[String: Any]])
        #expect(noise.first?["path"] as? String == "$.requestId")
        #expect(noise.first?["change"] as? String == "changed")
        #expect(noise.first?["from"] as? String == #""r0""#)
        #expect(replays[0]["replaySequence"] as? Int == 2)
    }

    @Test("cancelling the run (Ctrl-C) stops new requests, cancels the one in flight, and reports what was sent")
    func interrupted() async throws {
        let (store, original, folder) = try Self.recordedStore()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plan = ReplayPlan(originals: [original])
        plan.times = 5
        let (started, starting) = AsyncStream.makeStream(of: Int.self)
        let run = Task {
            await Self.run(plan, store: store) { number, _ in
                starting.yield(number)
                return Self.json("{}")
            } hold: { number in
                guard number == 2 else { return }
                try await ManualClock().sleep(for: .seconds(1))  // a clock nobody advances: ends only when cancelled
            }
        }
        for await number in started where number == 2 { break }
        run.cancel()
        let (report, _) = await run.value
        #expect(report.result.interrupted)
        #expect(report.result.outcomes.count == 2)
        #expect(!report.succeeded)
        #expect(report.text[1] == "Interrupted: 2 of 5 requests sent.")
    }
}
