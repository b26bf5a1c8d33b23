import Benchmark
import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace

/// The cost of the client itself, with the network taken out: every benchmark here talks to an in-process
/// `CannedTransport`, so what is left is Loupe's per-request work (URL building, the middleware chain, the exchange
/// tracker, observer callbacks) and, for the recording ones, the flight recorder's.
///
/// One op = one request; each iteration sends 1,000 (`scalingFactor: .kilo`), so wall time is per request and
/// throughput is requests per second. The recording benchmarks end each iteration with `flush()`, so the time
/// to get every exchange into its store is counted, not left to a background thread after the clock stopped.
func registerClientBenchmarks() {
    // 1. The baseline: the transport called directly, as the client's innermost step does.
    let raw = Holder<(HTTPRequest, RequestContext)>()
    Benchmark("Transport raw") { benchmark in
        guard let (request, context) = raw.value else { return benchmark.error("no setup") }
        let transport = Fixtures.transport
        for _ in benchmark.scaledIterations {
            blackHole(try? await transport.send(request, body: nil, context: context))
        }
    } setup: {
        raw.value = try await Fixtures.capturedContext()
    } teardown: {
        raw.value = nil
    }

    // 2. The client with nothing watching: the default `NoOpClientObserver`.
    Benchmark("Client bare") { benchmark in
        let client = Client(baseURL: Fixtures.baseURL, transport: Fixtures.transport)
        let endpoint = Ping()
        for _ in benchmark.scaledIterations {
            blackHole(try? await client.send(endpoint))
        }
    }

    // 3. Recording into memory, a fresh store per iteration (see `sendRecorded`).
    Benchmark("Client recording (in-memory store)") { benchmark in
        await sendRecorded(benchmark) { Client(baseURL: Fixtures.baseURL, transport: Fixtures.transport, observer: $0) }
    }

    // 4. Recording into SQLite, one store for the whole benchmark, as an app would keep it.
    let sqlite = Holder<(folder: URL, store: SQLiteTraceStore, inspector: NetworkTraceInspector)>()
    Benchmark("Client recording (SQLite)") { benchmark in
        guard let (_, store, inspector) = sqlite.value else { return benchmark.error("no setup") }
        let client = Client(baseURL: Fixtures.baseURL, transport: Fixtures.transport, observer: inspector)
        let endpoint = Ping()
        let before = (try? store.count()) ?? 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try? await client.send(endpoint))
        }
        await inspector.flush()
        benchmark.stopMeasurement()
        check(inspector, stored: (try? store.count()).map { $0 - before }, expected: benchmark.scaledIterations.count, benchmark)
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        sqlite.value = (folder, store, NetworkTraceInspector(store: store))
    } teardown: {
        guard let (folder, store, inspector) = sqlite.value else { return }
        await inspector.shutdown()
        try? store.close()
        Fixtures.remove(folder)
        sqlite.value = nil
    }

    // 5. The full resilient stack (`Client.resilient`: tracing, metrics, de-dup, conditional GET, retry with its
    //    budget and deadline, bearer auth, throttle, circuit breaker), nothing recording. Metrics and tracing are
    //    NoOp: nothing here bootstraps a backend. The client is made before the clock starts, once per
    //    iteration, so the breaker, budget and caches reach their steady state within the iteration's 1,000.
    Benchmark("Client resilient") { benchmark in
        await sendMeasured(benchmark, through: .resilient(
            baseURL: Fixtures.baseURL, transport: Fixtures.transport, options: .benchmark))
    }

    // 6. The full stack and the flight recorder (in memory, as 3): what a production client does per request,
    //    minus the network. Its gap to "Client bare" is the overhead the resilience aim (≤ 15 µs) is about.
    Benchmark("Client resilient + recording (in-memory store)") { benchmark in
        await sendRecorded(benchmark) { .resilient(baseURL: Fixtures.baseURL, transport: Fixtures.transport, observer: $0, options: .benchmark) }
    }

    // 6a. Exactly the stack issue #3's aim names (retry with budget and deadline, circuit breaker, bearer auth,
    //     de-duplication, throttle, metrics) plus the recorder: 6 without tracing and conditional GET.
    Benchmark("Client issue-3 stack + recording (in-memory store)") { benchmark in
        await sendRecorded(benchmark) { .resilient(baseURL: Fixtures.baseURL, transport: Fixtures.transport, observer: $0, options: .issueStack) }
    }

    // 5a. Where 5's overhead goes: the bare client plus one component of the resilient stack at a time, with the
    //     settings `Client.resilient` gives it. The parts need not add up exactly to 5 (a longer chain costs a
    //     little more per link), but they show which component dominates.
    for component in ResilienceComponent.allCases {
        Benchmark("Client + \(component.rawValue) only") { benchmark in
            await sendMeasured(benchmark, through: .resilient(
                baseURL: Fixtures.baseURL, transport: Fixtures.transport, options: .only(component)))
        }
    }

    // 5b. Splits "tracing only": the same middleware without the fallback `traceparent` it builds when the
    //     (here NoOp) tracer injects none.
    Benchmark("Client + tracing only (no fallback traceparent)") { benchmark in
        await sendMeasured(benchmark, through: Client(
            baseURL: Fixtures.baseURL, transport: Fixtures.transport,
            middlewares: [TracingMiddleware(injectsTraceparentWhenMissing: false)]))
    }
}

/// Sends the iteration's requests through `client` (made before the clock starts, by the caller), measuring only
/// the sends.
func sendMeasured(_ benchmark: Benchmark, through client: Client) async {
    let endpoint = Ping()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(try? await client.send(endpoint))
    }
    benchmark.stopMeasurement()
}

/// Sends the iteration's requests through the client `makeClient` builds around a recorder with a fresh in-memory
/// store (both made before the clock starts), the final `flush()` inside the measurement; fails if anything was
/// lost. A fresh store per iteration, because `InMemoryTraceStore` keeps everything: a shared one would make later
/// iterations measure a bigger store.
func sendRecorded(_ benchmark: Benchmark, makeClient: (NetworkTraceInspector) -> Client) async {
    let store = InMemoryTraceStore()
    let inspector = NetworkTraceInspector(store: store)
    let client = makeClient(inspector)
    let endpoint = Ping()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(try? await client.send(endpoint))
    }
    await inspector.flush()
    benchmark.stopMeasurement()
    await inspector.shutdown()
    check(inspector, stored: try? store.count(), expected: benchmark.scaledIterations.count, benchmark)
}

/// The parts of `ResilienceOptions`, for the one-at-a-time benchmarks.
enum ResilienceComponent: String, CaseIterable {
    case tracing, metrics, dedup, conditionalGET = "conditional GET", retry = "retry (budget, deadline)"
    case bearer = "bearer auth", throttle, breaker = "circuit breaker"
}

extension ResilienceOptions {
    /// Everything off but `component`, which keeps its `Client.resilient` default (bearer: ``StaticTokenProvider``).
    static func only(_ component: ResilienceComponent) -> ResilienceOptions {
        let all = ResilienceOptions.benchmark
        var options = ResilienceOptions()
        (options.retry, options.retryBudgetRatio, options.deadline, options.circuitBreaker) = (nil, nil, nil, nil)
        (options.maxConcurrent, options.maxConcurrentPerHost, options.tokenProvider) = (nil, nil, nil)
        (options.deduplicate, options.conditionalGET, options.metrics, options.tracing) = (false, false, false, false)
        options.annotatesMetadata = false
        switch component {
        case .tracing: options.tracing = true
        case .metrics: options.metrics = true
        case .dedup: options.deduplicate = true
        case .conditionalGET: options.conditionalGET = true
        case .retry: (options.retry, options.retryBudgetRatio, options.deadline) = (all.retry, all.retryBudgetRatio, all.deadline)
        case .bearer: options.tokenProvider = all.tokenProvider
        case .throttle: (options.maxConcurrent, options.maxConcurrentPerHost) = (all.maxConcurrent, all.maxConcurrentPerHost)
        case .breaker: options.circuitBreaker = all.circuitBreaker
        }
        return options
    }
}

/// Fails the benchmark if the recorder lost anything: a fast number that dropped exchanges would be a lie.
func check(_ inspector: NetworkTraceInspector, stored: Int?, expected: Int, _ benchmark: Benchmark) {
    if inspector.droppedCount > 0 || inspector.failedWriteCount > 0 || stored != expected {
        benchmark.error("""
            recorder lost exchanges: stored \(stored.map(String.init) ?? "?") of \(expected), \
            dropped \(inspector.droppedCount), failed writes \(inspector.failedWriteCount) \
            (\(inspector.lastWriteError ?? "no error"))
            """)
    }
}
