import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization

// Issue 32's in-process shapes for `cpu-callgrind.sh`: the client, the resilient stack, and the recorder with its
// background writer (in memory or into a SQLite file), over `CannedTransport`, one request at a time. No network,
// no server: callgrind counts Loupe's own instructions a request. Its dependencies are Loupe's alone (no NIO, no
// TLS), so a release build takes minutes, not the better part of an hour as LoupeProfile's does under load.
//   nice -n 15 swift build -c release --product cpu-profile
//   .build/release/cpu-profile resilient-sqlite 20000
//
// No async main: valgrind 3.19 dies (SIGSEGV inside itself) on one, whose main thread parks in `dispatch_main`
// (`pthread_exit`, then `sigsuspend` in a key destructor). The main thread blocks on a semaphore instead while the
// requests run on the cooperative pool, as they do in an app.

struct Ping: Endpoint {
    typealias Response = Data
    var path: String { "/v1/ping" }
}

/// The benchmark's bearer credential: always valid, never refreshed.
struct StaticTokenProvider: TokenProvider {
    func currentCredential() async throws -> Credential { Credential(token: "profile-token") }
    func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: "profile-token") }
}

/// What `blocking` waits for.
final class BlockingOutcome<T: Sendable>: Sendable {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<T?>(nil)
}

/// Runs `work` on the global executor and blocks the (synchronous) main thread until it ends.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let outcome = BlockingOutcome<T>()
    Task.detached {
        let result = await work()
        outcome.result.withLock { $0 = result }
        outcome.done.signal()
    }
    outcome.done.wait()
    return outcome.result.withLock { $0! }
}

/// Sends `count` requests one after another, then waits for the recorder to write them.
@concurrent func sendAll(_ client: Client, count: Int, recorder: NetworkTraceInspector?) async -> Int {
    var failed = 0
    for _ in 0..<count {
        do { _ = try await client.send(Ping()) } catch { failed += 1 }
    }
    await recorder?.flush()
    return failed
}

let arguments = CommandLine.arguments.dropFirst()
let shape = arguments.first ?? "resilient-sqlite"
let count = arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
let baseURL = URL(string: "https://api.example.com")!
let transport: any ClientTransport = CannedTransport(json: #"{"ok":true,"id":42,"name":"loupe"}"#)
var options = ResilienceOptions()
options.tokenProvider = StaticTokenProvider()
let file = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-cpu-profile-\(getpid()).sqlite").path

let sqliteStore = shape == "resilient-sqlite" ? try SQLiteTraceStore(path: file, bounds: nil) : nil
let recorder: NetworkTraceInspector? = switch shape {
case "recording", "resilient-recording": NetworkTraceInspector(store: InMemoryTraceStore(bounds: TraceStoreBounds(maxCount: 1_000)))
case "resilient-sqlite": NetworkTraceInspector(store: sqliteStore!)
default: nil
}
let client: Client = switch shape {
case "bare": Client(baseURL: baseURL, transport: transport)
case "recording": Client(baseURL: baseURL, transport: transport, observer: recorder!)
case "resilient": Client.resilient(baseURL: baseURL, transport: transport, options: options)
case "resilient-recording", "resilient-sqlite":
    Client.resilient(baseURL: baseURL, transport: transport, observer: recorder!, options: options)
default: fatalError("cpu-profile: unknown shape \(shape) (bare, resilient, recording, resilient-recording, resilient-sqlite)")
}
let start = ContinuousClock.now
let failed = blocking { [client, recorder] in await sendAll(client, count: count, recorder: recorder) }
// Closing indexes the rows still waiting for the search index: its whole cost is counted.
try sqliteStore?.close()
let elapsed = start.duration(to: .now)
let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
var line = "\(shape): \(count) requests, \(String(format: "%.2f", micros / Double(count))) µs each, failed \(failed)"
if let recorder { line += ", recorded \(recorder.writtenCount), dropped \(recorder.droppedCount)" }
print(line)
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
