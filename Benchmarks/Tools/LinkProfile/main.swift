import Dispatch
import Foundation
import Loupe
import LoupeLink
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization

// The live link's budgets (issue 28, `link-budget.sh`): the app's side as LoupeProfile's `recording` shape, with and
// without a link, and `listen`, the viewer's side as `loupe listen`. A tool of its own with no HTTP client or server
// in it, so its release build needs only what the link needs.
//   link-profile recording|recording-linked COUNT     (LOUPE_RATE=R paces it; LOUPE_LINK for the linked one)
//   link-profile listen ADDR:PORT --store PATH
struct Ping: Endpoint {
    typealias Response = Data
    var path: String { "/v1/ping" }
}

/// The whole tool, run by `runBlocking` below.
@concurrent func profile(_ arguments: ArraySlice<String>) async throws {
    let shape = arguments.first ?? "recording"
    if shape == "listen" {
        try await ProfileListener.run(Array(arguments.dropFirst()))
        exit(0)
    }
    guard ["recording", "recording-linked"].contains(shape) else {
        print("usage: link-profile recording|recording-linked COUNT | listen ADDR:PORT --store PATH")
        exit(2)
    }
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
    let environment = ProcessInfo.processInfo.environment
    // The same client and recorder as LoupeProfile's `recording`: the canned transport, a bounded in-memory store.
    let transport: any ClientTransport = CannedTransport(json: #"{"ok":true,"id":42,"name":"loupe"}"#)
    let store = InMemoryTraceStore(bounds: TraceStoreBounds(maxCount: 1_000))
    // `recording-linked`: the same recorder, linked to the listener in LOUPE_LINK (link-budget.sh starts it in another
    // process, so only the app's side is counted here). LOUPE_LINK_BUFFER_MB sets the link's buffer (default 16 MiB),
    // LOUPE_LINK_DRAIN_S how long the shutdown waits for the viewer to acknowledge what is still buffered (default the
    // link's 3 s): link-budget.sh's ingest step sets it long enough that every exchange is acknowledged or counted.
    let link: LoupeLink?
    if shape == "recording-linked" {
        guard let address = try LinkAddress.fromEnvironment(environment) else {
            print("recording-linked needs LOUPE_LINK (the line `loupe listen` prints)")
            exit(2)
        }
        var configuration = LoupeLink.Configuration(appName: "link-profile")
        if let megabytes = environment["LOUPE_LINK_BUFFER_MB"].flatMap(Int.init) {
            configuration.bufferBytes = max(1, megabytes << 20)
        }
        if let seconds = environment["LOUPE_LINK_DRAIN_S"].flatMap(Double.init), seconds >= 0 {
            configuration.drainTimeout = .seconds(seconds)
        }
        link = try LoupeLink(address, configuration: configuration)
    } else {
        link = nil
    }
    let inspector = NetworkTraceInspector(store: store, configuration: .init(forwarders: [link]))
    let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: transport, observer: inspector)
    /// LOUPE_RATE=R paces the loop at R exchanges a second (each millisecond's share, then a sleep to its due time): at
    /// full speed the recorder's writer falls behind the canned transport and drops, so the link's cost is compared at
    /// a rate where nothing is dropped.
    let rate = environment["LOUPE_RATE"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }

    if let link {
        // Linked before the first request, so the TLS handshake is not counted and nothing waits for a connection.
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while link.counts.links == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        guard link.counts.links > 0 else {
            print("link: not linked to \(link.address.redacted) within 10 s")
            exit(1)
        }
    }
    let cpuBefore = processCPUMicroseconds()
    let elapsed = await sendAll(client, count: count, rate: rate)
    // What the link still holds goes out within its drain time (every exchange acknowledged by the viewer, or
    // LOUPE_LINK_DRAIN_S, 3 s by default).
    let drainStart = ContinuousClock.now
    await inspector.shutdown()
    let drained = drainStart.duration(to: .now)
    // The whole process (request loop, the recorder's writer, the link's encoding, TLS and socket writes), from the first
    // request to the last exchange recorded and, when linked, acknowledged: the CPU budget's figure.
    let cpu = (processCPUMicroseconds() - cpuBefore) / Double(count)
    let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
    let paced = rate.map { ", paced at \(Int($0))/s" } ?? ""
    print("\(shape): \(count) requests\(paced), \(String(format: "%.2f", micros / Double(count))) µs each, "
        + "\(String(format: "%.2f", cpu)) µs CPU each, recorder dropped \(inspector.droppedCount)")
    if let link {
        let counts = link.counts
        print("link: \(counts.acknowledged) of \(counts.sent) acknowledged, \(counts.dropped) dropped, \(counts.pending) pending"
            + String(format: " after a drain of %.2f s", Double(drained.components.seconds) + Double(drained.components.attoseconds) / 1e18))
    }
}

/// Off the main actor: top-level code is main-actor isolated, and every `await` from there would add two executor
/// hops per request.
@concurrent func sendAll(_ client: Client, count: Int, rate: Double?) async -> Duration {
    let start = ContinuousClock.now
    let share = rate.map { max(1, Int($0 / 1_000)) } ?? Int.max
    for index in 0..<count {
        if let rate, index % share == 0 {
            let due = start.advanced(by: .seconds(Double(index) / rate))
            if ContinuousClock.now < due { try? await Task.sleep(until: due, clock: .continuous) }
        }
        _ = try? await client.send(Ping())
    }
    return start.duration(to: .now)
}

/// Runs `body` on the global executor while the main thread waits for it: an `await` at the top level would make
/// this an async main, which valgrind 3.19 cannot run (it dies inside itself with SIGSEGV once the main thread enters
/// `dispatch_main`), and callgrind's instruction counts are the link's noise-free figures (`link-callgrind.sh`).
func runBlocking(_ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    Task.detached {
        do { try await body() } catch { failure.withLock { $0 = "\(error)" } }
        done.signal()
    }
    done.wait()
    if let message = failure.withLock({ $0 }) {
        print("link-profile: \(message)")
        exit(1)
    }
}

runBlocking { try await profile(CommandLine.arguments.dropFirst()) }

/// User and system CPU time of this process so far, in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}
