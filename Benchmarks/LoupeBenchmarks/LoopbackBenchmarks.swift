import AsyncHTTPClient
import Benchmark
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoopbackServer
import LoupeQuery
import LoupeTrace
import Synchronization

/// Throughput over a real socket: a Hummingbird server on 127.0.0.1 (ephemeral port) answering `GET /ping` with a
/// 34-byte JSON body, and 8 requests kept in flight by a task group.
///
/// One op = one request; each iteration sends 1,000 (`scalingFactor: .kilo`), so throughput is requests per second.
/// Every benchmark starts its own server and its own `HTTPClient` (default configuration, so the same pool of up to
/// 8 HTTP/1.1 connections per host) in setup and shuts both down in teardown; warm-up iterations open the
/// connections. Each request carries a distinct `?n=` so that the resilient stack's de-duplication never merges
/// two of the 8 in-flight GETs (which would flatter it), and every iteration checks that the server answered
/// exactly 1,000 requests.
func registerLoopbackBenchmarks() {
    let inFlight = 8

    // 7. The baseline: AsyncHTTPClient itself, `execute` then `collect`.
    let raw = Holder<LoopbackRig>()
    Benchmark("Loopback AHC raw (8 in flight)") { benchmark in
        guard let rig = raw.value else { return benchmark.error("no setup") }
        let http = rig.http
        let base = rig.baseURLString
        await rig.run(benchmark, width: inFlight) { n in
            let request = HTTPClientRequest(url: "\(base)/ping?n=\(n)")
            let response = try await http.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok, body.readableBytes == Fixtures.responseJSON.utf8.count else {
                throw BenchmarkSetupError("unexpected answer \(response.status)")
            }
        }
    } setup: {
        raw.value = try await LoopbackRig.start()
    } teardown: {
        await raw.value?.stop()
        raw.value = nil
    }

    // 7a. Context: the baseline with each request run in an unstructured `Task` and awaited, as
    //     `Client.runCancellable` does for every exchange (so `cancelAll()` can reach it): the price of that one
    //     extra task and its two scheduling hops, on the same loop.
    let hop = Holder<LoopbackRig>()
    Benchmark("Loopback AHC raw + Task per request (8 in flight)") { benchmark in
        guard let rig = hop.value else { return benchmark.error("no setup") }
        let http = rig.http
        let base = rig.baseURLString
        await rig.run(benchmark, width: inFlight) { n in
            try await Task {
                let request = HTTPClientRequest(url: "\(base)/ping?n=\(n)")
                let response = try await http.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok, body.readableBytes == Fixtures.responseJSON.utf8.count else {
                    throw BenchmarkSetupError("unexpected answer \(response.status)")
                }
            }.value
        }
    } setup: {
        hop.value = try await LoopbackRig.start()
    } teardown: {
        await hop.value?.stop()
        hop.value = nil
    }

    // 7b. Context: Loupe's transport called directly (`AsyncHTTPClientTransport.send`, no `Client`): the cost of
    //     converting to and from AHC's types, apart from the client's.
    let transport = Holder<(rig: LoopbackRig, context: Loupe.RequestContext)>()
    Benchmark("Loopback Transport direct (8 in flight)") { benchmark in
        guard let (rig, context) = transport.value else { return benchmark.error("no setup") }
        let loupeTransport = AsyncHTTPClientTransport(client: rig.http)
        let authority = "127.0.0.1:\(rig.port)"
        await rig.run(benchmark, width: inFlight) { n in
            let request = HTTPRequest(
                method: .get, scheme: "http", authority: authority, path: "/ping?n=\(n)",
                headerFields: [.userAgent: "Loupe/0.1"])
            let raw = try await loupeTransport.send(request, body: nil, context: context)
            guard raw.head.status == .ok, raw.body.count == Fixtures.responseJSON.utf8.count else {
                throw BenchmarkSetupError("unexpected answer \(raw.head.status)")
            }
        }
    } setup: {
        transport.value = (try await LoopbackRig.start(), try await Fixtures.capturedContext().1)
    } teardown: {
        await transport.value?.rig.stop()
        transport.value = nil
    }

    // 8. The bare Loupe client on `AsyncHTTPClientTransport(client:)`, borrowing the rig's `HTTPClient`.
    let bare = Holder<LoopbackRig>()
    Benchmark("Loopback Client bare (8 in flight)") { benchmark in
        guard let rig = bare.value else { return benchmark.error("no setup") }
        let client = Client(baseURL: rig.baseURL, transport: AsyncHTTPClientTransport(client: rig.http))
        await rig.run(benchmark, width: inFlight) { n in
            blackHole(try await client.send(LoopbackPing(n: n)))
        }
    } setup: {
        bare.value = try await LoopbackRig.start()
    } teardown: {
        await bare.value?.stop()
        bare.value = nil
    }

    // 9. Context for 10: the full resilient stack, nothing recording (metrics and tracing NoOp).
    let resilient = Holder<LoopbackRig>()
    Benchmark("Loopback Client resilient (8 in flight)") { benchmark in
        guard let rig = resilient.value, let client = rig.client else { return benchmark.error("no setup") }
        await rig.run(benchmark, width: inFlight) { n in
            blackHole(try await client.send(LoopbackPing(n: n)))
        }
    } setup: {
        var rig = try await LoopbackRig.start()
        rig.client = Client.resilient(
            baseURL: rig.baseURL, transport: AsyncHTTPClientTransport(client: rig.http), options: .benchmark)
        resilient.value = rig
    } teardown: {
        await resilient.value?.stop()
        resilient.value = nil
    }

    // 9a. Where 9's cost goes on a real socket with 8 in flight: the bare client plus one component at a time
    //     (as "Client + X only" in-process; actors that are uncontended there are contended here).
    for component in ResilienceComponent.allCases {
        let single = Holder<LoopbackRig>()
        Benchmark("Loopback Client + \(component.rawValue) only (8 in flight)") { benchmark in
            guard let rig = single.value, let client = rig.client else { return benchmark.error("no setup") }
            await rig.run(benchmark, width: inFlight) { n in
                blackHole(try await client.send(LoopbackPing(n: n)))
            }
        } setup: {
            var rig = try await LoopbackRig.start()
            rig.client = Client.resilient(
                baseURL: rig.baseURL, transport: AsyncHTTPClientTransport(client: rig.http), options: .only(component))
            single.value = rig
        } teardown: {
            await single.value?.stop()
            single.value = nil
        }
    }

    // 10. The production shape: the full resilient stack recording into SQLite (one store for the benchmark, as
    //     an app keeps it). Each iteration ends with `flush()`, so getting its 1,000 exchanges into the file is
    //     inside the measurement; it fails if the recorder dropped or failed to write any.
    let recording = Holder<LoopbackRig>()
    Benchmark("Loopback Client resilient + recording (SQLite) (8 in flight)") { benchmark in
        guard let rig = recording.value, let client = rig.client, let (_, store, inspector) = rig.recorder
        else { return benchmark.error("no setup") }
        let before = (try? store.count()) ?? 0
        await rig.run(benchmark, width: inFlight, whileMeasuring: { await inspector.flush() }) { n in
            blackHole(try await client.send(LoopbackPing(n: n)))
        }
        check(inspector, stored: (try? store.count()).map { $0 - before }, expected: benchmark.scaledIterations.count, benchmark)
    } setup: {
        var rig = try await LoopbackRig.start()
        let folder = try Fixtures.temporaryFolder()
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        let inspector = NetworkTraceInspector(store: store)
        rig.recorder = (folder, store, inspector)
        rig.client = Client.resilient(
            baseURL: rig.baseURL, transport: AsyncHTTPClientTransport(client: rig.http), observer: inspector,
            options: .benchmark)
        recording.value = rig
    } teardown: {
        if let (folder, store, inspector) = recording.value?.recorder {
            await inspector.shutdown()
            try? store.close()
            Fixtures.remove(folder)
        }
        await recording.value?.stop()
        recording.value = nil
    }
}

/// `GET /ping?n=N`, the body returned as `Data`.
struct LoopbackPing: Endpoint {
    typealias Response = Data
    let n: Int
    var path: String { "/ping" }
    var query: [URLQueryItem] { [URLQueryItem(name: "n", value: String(n))] }
    var operationName: String { "GET /ping" }
}

/// One benchmark's server and HTTP client (and, for some, a Loupe client and a recorder).
struct LoopbackRig: Sendable {
    let server: Task<Void, any Error>
    let port: Int
    let http: HTTPClient
    /// Requests the server has answered.
    let hits: HitCounter
    /// Hands out the `n` of each request, so no two requests of a run share a URL.
    let sequence = HitCounter()
    var client: Client?
    var recorder: (folder: URL, store: SQLiteTraceStore, inspector: NetworkTraceInspector)?

    var baseURLString: String { "http://127.0.0.1:\(port)" }
    var baseURL: URL { URL(string: baseURLString)! }

    /// Starts the server on an ephemeral port (returning once it listens) and a dedicated `HTTPClient`.
    static func start() async throws -> LoopbackRig {
        let hits = HitCounter()
        let (server, port) = try await LoopbackServer.start(name: "loupe-bench", body: Fixtures.responseJSON) {
            hits.value.add(1, ordering: .relaxed)
        }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init())
        return LoopbackRig(server: server, port: port, http: http, hits: hits)
    }

    func stop() async {
        try? await http.shutdown()
        server.cancel()
        _ = await server.result
    }

    /// Sends `benchmark.scaledIterations.count` requests, keeping `width` in flight; `whileMeasuring` runs after
    /// the last answer and before the clock stops. Any failed request, or a server count that does not match,
    /// fails the benchmark.
    func run(
        _ benchmark: Benchmark, width: Int, whileMeasuring finish: () async -> Void = {},
        _ request: @escaping @Sendable (Int) async throws -> Void
    ) async {
        let total = benchmark.scaledIterations.count
        let first = sequence.value.add(total, ordering: .relaxed).oldValue
        let before = hits.value.load(ordering: .relaxed)
        benchmark.startMeasurement()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                while next < min(width, total) {
                    let n = first + next
                    group.addTask { try await request(n) }
                    next += 1
                }
                while try await group.next() != nil, next < total {
                    let n = first + next
                    group.addTask { try await request(n) }
                    next += 1
                }
                try await group.waitForAll()
            }
        } catch {
            benchmark.stopMeasurement()
            return benchmark.error("request failed: \(error)")
        }
        await finish()
        benchmark.stopMeasurement()
        let answered = hits.value.load(ordering: .relaxed) - before
        if answered != total {
            benchmark.error("the server answered \(answered) requests, expected \(total)")
        }
    }
}

final class HitCounter: Sendable {
    let value = Atomic<Int>(0)
}
