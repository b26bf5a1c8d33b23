import Benchmark
import Foundation
import GRDB
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFilter

/// What `loupe list --filter EXPR --limit 50` does on a large store: `summaries(matching:limit:)` on a read-only
/// `SQLiteTraceStore` holding 1,000,000 exchanges, for filters the schema indexes.
///
/// `scalingFactor: .one`: one op = one query (parse included, the open of the store not). The store is generated
/// once (batched `write`, 10,000 per call, about a minute) into `Benchmarks/.build/bigstore.sqlite` and reused by
/// later runs; delete that file (and its `.complete` marker) to regenerate. Its mix, from a fixed seed: 8 hosts
/// (3 under example.com), GET 70 % / POST 15 % / PUT 8 % / DELETE 5 % / PATCH 2 %, status 200 85 %, 201 3 %,
/// 304 2 %, 404 4 %, 429 1 %, 500 2 %, 503 2 %, transport errors 1 % (no status); one attempt (1–3 for 503s and
/// transport errors); start times spread over the last 7 days, with time-ordered ids.
func registerBigStoreBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 500
    )
    for expression in ["~c 503", "~d example.com & ~m POST"] {
        let store = Holder<SQLiteTraceStore>()
        Benchmark("List 1M store --filter '\(expression)' --limit 50", configuration: configuration) { benchmark in
            guard let store = store.value else { return benchmark.error("no setup") }
            do {
                let summaries = try store.summaries(matching: TraceFilter.parse(expression), limit: 50)
                if summaries.count != 50 { benchmark.error("expected 50 matches, got \(summaries.count)") }
                blackHole(summaries)
            } catch {
                benchmark.error("query failed: \(error)")
            }
        } setup: {
            store.value = try BigStore.open()
        } teardown: {
            try? store.value?.close()
            store.value = nil
        }
    }
}

enum BigStore {
    static let exchangeCount = 1_000_000

    /// `Benchmarks/.build/bigstore.sqlite`, found from this source file so the working directory does not matter.
    static var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/bigstore.sqlite").path
    }

    /// Opens the cached store read-only (as `loupe list` does), generating it first if it is missing, incomplete
    /// or not the size expected. A writable open comes first so a schema migrated since is brought up to date;
    /// no bounds, so nothing is ever pruned from it.
    static func open() throws -> SQLiteTraceStore {
        let marker = path + ".complete"
        if FileManager.default.fileExists(atPath: marker) {
            let store = try SQLiteTraceStore(path: path, bounds: nil)
            let count = try store.count()
            try store.close()
            if count != exchangeCount {
                try? FileManager.default.removeItem(atPath: marker)
            }
        }
        if !FileManager.default.fileExists(atPath: marker) {
            try generate()
            _ = FileManager.default.createFile(atPath: marker, contents: Data())
        }
        return try SQLiteTraceStore(path: path, readOnly: true)
    }

    private static func generate() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        defer { try? store.close() }
        var random = SplitMix64(seed: 0x10CE_2025)
        let end = Date()
        let start = end.addingTimeInterval(-7 * 24 * 3600)
        let step = end.timeIntervalSince(start) / Double(exchangeCount)
        let batchSize = 10_000
        let began = Date()
        for batchStart in stride(from: 0, to: exchangeCount, by: batchSize) {
            var batch: [TraceExchange] = []
            batch.reserveCapacity(batchSize)
            for index in batchStart..<min(batchStart + batchSize, exchangeCount) {
                batch.append(exchange(at: start.addingTimeInterval(Double(index) * step), random: &random))
            }
            try store.write(batch)
        }
        print("generated \(exchangeCount) exchanges in \(path) in \(Int(Date().timeIntervalSince(began))) s")
    }

    private static let hosts = [
        "api.example.com", "cdn.example.com", "auth.example.com", "api.example.org",
        "payments.acme.io", "images.acme.io", "search.internal", "metrics.internal",
    ]
    private static let paths = ["/v1/users", "/v1/orders", "/v1/ping", "/v2/search", "/v1/payments", "/assets/logo.png"]

    private static func exchange(at startedAt: Date, random: inout SplitMix64) -> TraceExchange {
        let host = hosts[Int(random.next() % UInt64(hosts.count))]
        let path = paths[Int(random.next() % UInt64(paths.count))]
        let method = pick(random.next() % 100, [(70, "GET"), (85, "POST"), (93, "PUT"), (98, "DELETE"), (100, "PATCH")])
        let roll = random.next() % 100
        let code = pick(roll, [(85, 200), (88, 201), (92, 404), (93, 429), (95, 500), (97, 503), (99, 304), (100, -1)])
        let status: Int? = code < 0 ? nil : code
        let outcome: ExchangeOutcome = switch status {
        case nil: .transportError
        case let code? where code < 400: .success
        default: .httpError
        }
        let duration = 0.005 + Double(random.next() % 2_000) / 1_000
        let attempts = (status == 503 || status == nil) ? 1 + Int(random.next() % 3) : 1
        let body = Data(Fixtures.responseJSON.utf8)
        return TraceExchange(
            id: ExchangeID.make(now: startedAt), operation: "\(method) \(path)", method: method,
            url: "https://\(host)\(path)", startedAt: startedAt, endedAt: startedAt.addingTimeInterval(duration),
            outcome: outcome, status: status, error: status == nil ? "connection reset by peer" : nil,
            requestHeaders: [
                TraceHeader(name: "Accept", value: "application/json"),
                TraceHeader(name: "User-Agent", value: "Loupe/0.1"),
            ],
            responseHeaders: status == nil ? [] : [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: status == nil ? nil : TraceBody(data: body, size: body.count, isTruncated: false),
            attempts: (1...attempts).map { number in
                TraceAttempt(
                    number: number, startedAt: startedAt, requestSentAt: startedAt.addingTimeInterval(0.001),
                    firstByteAt: startedAt.addingTimeInterval(duration * 0.8),
                    endedAt: startedAt.addingTimeInterval(duration), status: status)
            })
    }

    private static func pick<T>(_ roll: UInt64, _ table: [(UInt64, T)]) -> T {
        table.first { roll < $0.0 }!.1
    }
}
