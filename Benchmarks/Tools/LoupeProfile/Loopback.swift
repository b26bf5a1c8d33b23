import AsyncHTTPClient
import Foundation
import LoopbackServer
import Loupe
import LoupeAsyncHTTPClient

/// `GET /ping?n=N` against a Hummingbird server on 127.0.0.1, 8 in flight, as the loopback benchmarks send it.
struct LoopbackPing: Endpoint {
    typealias Response = Data
    let n: Int
    var path: String { "/ping" }
    var query: [URLQueryItem] { [URLQueryItem(name: "n", value: String(n))] }
    var operationName: String { "GET /ping" }
}

enum Loopback {
    /// Runs `count` requests of `shape` (`raw`, `bare`, `resilient`, `resilient-recording`), 8 in flight.
    @concurrent static func run(_ shape: String, count: Int, options: ResilienceOptions, observer: any ClientObserver) async throws -> Duration {
        let (server, port) = try await LoopbackServer.start(
            name: "loupe-profile", body: #"{"ok":true,"id":42,"name":"loupe"}"#)
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init())
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let transport = AsyncHTTPClientTransport(client: http)
        let client: Client = switch shape {
        case "raw", "bare": Client(baseURL: base, transport: transport)
        case "resilient": Client.resilient(baseURL: base, transport: transport, options: options)
        default: Client.resilient(baseURL: base, transport: transport, observer: observer, options: options)
        }
        let send: @Sendable (Int) async throws -> Void
        if shape == "raw" {
            send = { n in
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/ping?n=\(n)")
                let response = try await http.execute(request, timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
            }
        } else {
            send = { n in _ = try await client.send(LoopbackPing(n: n)) }
        }
        for n in 0..<200 { try await send(n) }  // warm up: connections, caches
        // LOUPE_IN_FLIGHT=1 separates the stack's own cost from what concurrency adds to it.
        let width = ProcessInfo.processInfo.environment["LOUPE_IN_FLIGHT"].flatMap(Int.init) ?? 8
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(width, count) {
                let n = next
                group.addTask { try await send(n) }
                next += 1
            }
            while try await group.next() != nil, next < count {
                let n = next
                group.addTask { try await send(n) }
                next += 1
            }
            try await group.waitForAll()
        }
        let elapsed = start.duration(to: .now)
        try await http.shutdown()
        server.cancel()
        _ = await server.result
        return elapsed
    }
}
