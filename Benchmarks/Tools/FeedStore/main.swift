import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import LoupeTrace

// `feed-store PATH [RATE] [SECONDS]`: records RATE exchanges a second (default 5000) for SECONDS (default 60) into
// the Loupe store at PATH, through the real recorder (`NetworkTraceInspector`) behind `Client.resilient` clients
// on an in-process transport. Three hosts: `api.feed.test` (2 % 503s, so retries), `slow.feed.test` (every 50th
// call fails, every one takes longer), and `flaky.feed.test`, which fails in bursts so its breaker opens, probes
// and closes. Live load for the TUI's screens (`tui-budget.sh --feed`); prints what it sent and what the
// recorder stored, dropped or lost.
let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...3).contains(arguments.count), let rate = Int(arguments.count > 1 ? arguments[1] : "5000"), rate > 0,
      let seconds = Double(arguments.count > 2 ? arguments[2] : "60"), seconds > 0 else {
    FileHandle.standardError.write(Data("usage: feed-store PATH [RATE] [SECONDS]\n".utf8))
    exit(2)
}

let store = try SQLiteTraceStore(path: arguments[0], bounds: nil)
let inspector = NetworkTraceInspector(store: store)
let start = ContinuousClock.now

/// The flaky host's bursts: failing for 3 s of every 15 since the feed started.
let flakyIsDown: @Sendable () -> Bool = { [start] in
    let elapsed = ContinuousClock.now - start
    return Int(elapsed.components.seconds) % 15 < 3
}

let transport = MockTransport { request, _, context in
    context.attempt?.markRequestSent()
    context.attempt?.markFirstByte()
    let host = request.authority ?? ""
    let path = request.path ?? "/"
    let number = Int(path.split(separator: "/").last ?? "") ?? 0
    let failing = switch host {
    case "api.feed.test": number % 50 == 7
    case "slow.feed.test": number % 50 == 0
    default: flakyIsDown()
    }
    if host == "slow.feed.test" { try await Task.sleep(for: .milliseconds(20)) }
    let status: HTTPResponse.Status = failing ? .serviceUnavailable : .ok
    return RawResponse(status: status, headerFields: [.contentType: "application/json"],
                       body: Data(#"{"id":\#(number),"ok":\#(!failing)}"#.utf8))
}
var options = ResilienceOptions()
options.maxConcurrent = 512
options.maxConcurrentPerHost = 256
let hosts = ["api.feed.test", "slow.feed.test", "flaky.feed.test"]
let clients = hosts.map {
    Client.resilient(baseURL: URL(string: "http://\($0)")!, transport: transport, observer: inspector, options: options)
}

let total = Int(Double(rate) * seconds)
let tick = Duration.milliseconds(10)
let perTick = max(1, rate / 100)
var sent = 0
var next = ContinuousClock.now
await withTaskGroup(of: Void.self) { group in
    while sent < total {
        for _ in 0..<min(perTick, total - sent) {
            let number = sent
            let which = number % 10 == 0 ? 1 : (number % 10 == 1 ? 2 : 0)
            let (client, host) = (clients[which], hosts[which])
            group.addTask {
                let request = HTTPRequest(method: .get, scheme: "http", authority: host, path: "/items/\(number)")
                _ = try? await client.execute(request, options: RequestOptions(operation: "getItem"))
            }
            sent += 1
        }
        next = next.advanced(by: tick)
        try? await Task.sleep(until: next, clock: .continuous)
    }
    await group.waitForAll()
}
await inspector.shutdown()
let elapsed = ContinuousClock.now - start
let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("feed-store: sent \(sent) in \(String(format: "%.1f", wall)) s (\(Int(Double(sent) / wall))/s); "
    + "stored \(inspector.writtenCount), dropped \(inspector.droppedCount), lost \(inspector.failedExchangeCount)")
