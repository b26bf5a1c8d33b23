import Foundation
import LoupeQuery
import Synchronization
import HTTPTypes
import Loupe
import LoupeRules
import LoupeTesting
import LoupeTrace

// A plain loop for `perf record`: package-benchmark's runner only measures when driven by its plugin, so this
// sends the same requests as the client benchmarks with no harness in the way.
//   swift build -c release --product LoupeProfile
//   perf record -g .build/release/LoupeProfile resilient-recording 200000
struct Ping: Endpoint {
    typealias Response = Data
    var path: String { "/v1/ping" }
}

let arguments = CommandLine.arguments.dropFirst()
let shape = arguments.first ?? "resilient-recording"
let count = arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
let baseURL = URL(string: "https://api.example.com")!
let transport: any ClientTransport = CannedTransport(json: #"{"ok":true,"id":42,"name":"loupe"}"#)
var options = ResilienceOptions()
options.tokenProvider = StaticTokenProvider()

let store = InMemoryTraceStore(bounds: TraceStoreBounds(maxCount: 1_000))
// (The live link's shapes, `recording` paced and `recording-linked`, are in Tools/LinkProfile: link-budget.sh.)
let inspector = NetworkTraceInspector(store: store)
/// Everything off but one component of the resilient stack (`only-retry`, `loopback-only-breaker`, …).
func onlyOptions(_ component: Substring, from options: ResilienceOptions) -> ResilienceOptions {
    var one = ResilienceOptions()
    (one.retry, one.retryBudgetRatio, one.deadline, one.circuitBreaker) = (nil, nil, nil, nil)
    (one.maxConcurrent, one.maxConcurrentPerHost, one.tokenProvider) = (nil, nil, nil)
    (one.deduplicate, one.conditionalGET, one.metrics, one.tracing) = (false, false, false, false)
    one.annotatesMetadata = false
    switch component {
    case "tracing": one.tracing = true
    case "metrics": one.metrics = true
    case "dedup": one.deduplicate = true
    case "cache": one.conditionalGET = true
    case "retry": (one.retry, one.retryBudgetRatio, one.deadline) = (options.retry, options.retryBudgetRatio, options.deadline)
    case "bearer": one.tokenProvider = options.tokenProvider
    case "throttle": (one.maxConcurrent, one.maxConcurrentPerHost) = (options.maxConcurrent, options.maxConcurrentPerHost)
    case "breaker": one.circuitBreaker = options.circuitBreaker
    default: fatalError("unknown component \(component)")
    }
    return one
}

if shape.hasPrefix("loopback-") {
    var loopShape = String(shape.dropFirst(9))
    var loopOptions = options
    if loopShape.hasPrefix("only-") {
        loopOptions = onlyOptions(loopShape.dropFirst(5), from: options)
        loopShape = "resilient"
    }
    // `resilient-sqlite`: recorded into a SQLite file, as an app records (the other recording shape keeps a
    // bounded in-memory store).
    var recorder = inspector
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-profile-\(getpid()).sqlite").path
    if loopShape == "resilient-sqlite" {
        recorder = NetworkTraceInspector(store: try SQLiteTraceStore(path: file, bounds: nil))
        loopShape = "resilient-recording"
    }
    let cpuBefore = processCPUMicroseconds()
    let (elapsed, flushed) = try blocking { [loopShape, loopOptions, recorder] in
        let elapsed = try await Loopback.run(loopShape, count: count, options: loopOptions, observer: recorder)
        // The wall time above ends at the last response; what the recorder still had queued then is written here.
        let flushStart = ContinuousClock.now
        await recorder.flush()
        return (elapsed, flushStart.duration(to: .now).components)
    }
    let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
    let flushMillis = Double(flushed.seconds) * 1e3 + Double(flushed.attoseconds) / 1e15
    // Server, client and recorder together, warm-up and the recorder's last flush included: what a request costs the
    // machine, which other processes on it disturb much less than the wall clock.
    let cpu = (processCPUMicroseconds() - cpuBefore) / Double(count + Loopback.warmUp)
    let lost = recorder === inspector ? "" : ", recorded \(recorder.writtenCount), dropped \(recorder.droppedCount), last write \(String(format: "%.1f", flushMillis)) ms after the last response"
    let width = ProcessInfo.processInfo.environment["LOUPE_IN_FLIGHT"] ?? "8"
    print("\(shape): \(count) requests, \(width) in flight, \(String(format: "%.1f", micros / Double(count))) µs each, \(String(format: "%.1f", cpu)) µs CPU each\(lost)")
    // LOUPE_KEEP_STORE=1 keeps the file, to look at what was recorded.
    if ProcessInfo.processInfo.environment["LOUPE_KEEP_STORE"] != nil, loopShape == "resilient-recording" {
        print("store kept at \(file)")
    } else {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
    }
    exit(0)
}
let client: Client
switch shape {
case "bare": client = Client(baseURL: baseURL, transport: transport)
case "bare-rules", "bare-rules-idle", "bare-rules-mock", "bare-rules-delay":
    // Rules enabled but none matching (issue 29's budget: ≤ 1 µs more than `bare`), and a book with none.
    // `-mock` and `-delay` add, after the same five, a rule matching every request: a mock answering as the canned
    // transport does, or a fault delaying each request LOUPE_RULE_DELAY_MS (1 ms by default) before sending (the
    // second budget: a matching mock or fault adds no more than its own delay).
    let book = RuleBook()
    if shape != "bare-rules-idle" {
        for (index, match) in ["~op getUser", "~m DELETE", "~op createOrder & ~m POST", "~d other.example", "~op listOrders"].enumerated() {
            book.put(try Rule(name: "rule \(index)", match: match, action: .fault(.status(503))), origin: .code)
        }
    }
    if shape == "bare-rules-mock" {
        let mock = RuleMock(status: 200, headers: [TraceHeader(name: "content-type", value: "application/json")],
                            body: Data(#"{"ok":true,"id":42,"name":"loupe"}"#.utf8))
        book.put(try Rule(name: "mock", match: "~op \"GET /v1/ping\"", action: .mock(mock)), origin: .code)
    }
    if shape == "bare-rules-delay" {
        let millis = ProcessInfo.processInfo.environment["LOUPE_RULE_DELAY_MS"].flatMap(Int.init) ?? 1
        book.put(try Rule(name: "delay", match: "~m GET", action: .fault(.latency(.milliseconds(millis)))), origin: .code)
    }
    client = Client(baseURL: baseURL, transport: RulesTransport(wrapping: transport, book: book))
case "bare-sleep":
    // The baseline of `bare-rules-delay`: the canned transport behind the same clock's sleep of the same length, no
    // rules. What the delay fault adds beyond its own delay is the difference of the two wall times.
    let millis = ProcessInfo.processInfo.environment["LOUPE_RULE_DELAY_MS"].flatMap(Int.init) ?? 1
    client = Client(baseURL: baseURL, transport: SleepingTransport(base: transport, delay: .milliseconds(millis)))
case "resilient": client = Client.resilient(baseURL: baseURL, transport: transport, options: options)
case "recording": client = Client(baseURL: baseURL, transport: transport, observer: inspector)
case "resilient-empty-observer":
    client = Client.resilient(baseURL: baseURL, transport: transport, observer: EmptyObserver(), options: options)
case let chain where chain.hasPrefix("chain-"):
    // N pass-through middlewares: what one link of the chain costs, apart from any middleware's own work.
    let links = Int(chain.dropFirst(6)) ?? 8
    client = Client(baseURL: baseURL, transport: transport, middlewares: Array(repeating: PassThrough(), count: links))
case let only where only.hasPrefix("only-"):
    client = Client.resilient(baseURL: baseURL, transport: transport, options: onlyOptions(only.dropFirst(5), from: options))
default: client = Client.resilient(baseURL: baseURL, transport: transport, observer: inspector, options: options)
}
/// Off the main actor, as the benchmarks run: top-level code is main-actor isolated, and every `await` from there
/// would add two executor hops per request.
@concurrent func sendAll(_ client: Client, count: Int) async -> Duration {
    let start = ContinuousClock.now
    for _ in 0..<count {
        _ = try? await client.send(Ping())
    }
    let sent = start.duration(to: .now)
    await inspector.flush()
    print("sending took \(sent / count) per request before the flush")
    return start.duration(to: .now)
}
let elapsed = try blocking { [client] in await sendAll(client, count: count) }
let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
print("\(shape): \(count) requests, \(String(format: "%.2f", micros / Double(count))) µs each, recorder dropped \(inspector.droppedCount)")

/// The benchmark's bearer credential: always valid, never refreshed.
struct StaticTokenProvider: TokenProvider {
    func currentCredential() async throws -> Credential { Credential(token: "profile-token") }
    func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: "profile-token") }
}

/// Sleeps on a `ContinuousClock`, as a delay fault does, then sends.
struct SleepingTransport: ClientTransport {
    let base: any ClientTransport
    let delay: Duration

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        try await ContinuousClock().sleep(for: delay)
        return try await base.send(request, body: body, context: context)
    }
}

/// Observes everything and does nothing: what building the observer payloads costs, apart from recording them.
struct EmptyObserver: ClientObserver {}

/// Hands every request on unchanged; holds a reference, as most middleware do (a registry, a limiter).
struct PassThrough: ClientMiddleware {
    let state = PassThroughState()

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        try await next(request, body, context)
    }
}

final class PassThroughState: Sendable {}

/// Runs `work` on the global executor and blocks the main thread until it ends. The tool has no async main (no
/// top-level `await`) because valgrind 3.19 dies on one: an async main ends in `dispatch_main`, which parks the main
/// thread with `pthread_exit` and a key destructor looping in `sigsuspend`, and callgrind crashes there (issue 32).
/// The requests run on the same cooperative pool either way; only the idle main thread waits differently.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = BlockingOutcome<T>()
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        outcome.result.withLock { $0 = result }
        outcome.done.signal()
    }
    outcome.done.wait()
    return try outcome.result.withLock { $0! }.get()
}

/// What `blocking` waits for.
final class BlockingOutcome<T: Sendable>: Sendable {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
}

/// User and system CPU time of this process so far, in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}
