import AsyncHTTPClient
import Foundation
import HTTPTypes
import LoopbackServer
import Loupe
import LoupeAsyncHTTPClient
import NIOCore
import NIOFoundationCompat

/// `GET /ping?n=N` against a Hummingbird server on 127.0.0.1, 8 in flight, as the loopback benchmarks send it.
struct LoopbackPing: Endpoint {
    typealias Response = Data
    let n: Int
    var path: String { "/ping" }
    var query: [URLQueryItem] { [URLQueryItem(name: "n", value: String(n))] }
    var operationName: String { "GET /ping" }
}

enum Loopback {
    /// Requests sent one by one before the timed run.
    static let warmUp = 200

    /// Runs `count` requests of `shape` (`raw`, `thin`, `bare`, `resilient`, `resilient-recording`), 8 in flight.
    @concurrent static func run(_ shape: String, count: Int, options: ResilienceOptions, observer: any ClientObserver) async throws -> Duration {
        let (server, port) = try await LoopbackServer.start(
            name: "loupe-profile", body: #"{"ok":true,"id":42,"name":"loupe"}"#)
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init())
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let transport = AsyncHTTPClientTransport(client: http)
        let client: Client = switch shape {
        case "raw", "bare": Client(baseURL: base, transport: transport)
        case "thin": Client(baseURL: base, transport: ThinTransport(http: http, port: port))
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
        for n in 0..<warmUp { try await send(n) }  // connections, caches
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

/// The raw loop's AsyncHTTPClient call behind Loupe's `ClientTransport`: `loopback-thin` measures the client's own
/// cost (middleware chain, tracking, observer payloads) apart from `AsyncHTTPClientTransport`'s.
struct ThinTransport: ClientTransport {
    let http: HTTPClient
    let port: Int
    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let outgoing = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(request.path ?? "/")")
        let response = try await http.execute(outgoing, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return RawResponse(head: HTTPResponse(status: .ok), body: Data(buffer: bytes))
    }
}
