import AsyncHTTPClient
import Dispatch
import Foundation
import HTTPTypes
import LoopbackServer
import Loupe
import LoupeAsyncHTTPClient
import LoupeOpenAPI
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeURLSession
import NIOCore
import OpenAPIRuntime
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The adapters' CPU per request, for `valgrind --tool=callgrind` (instruction counts, JOURNAL J259, J321): one
// process per mode runs COUNT requests, so only the client, the adapter and the recorder (its background writer
// included) are counted. Per-request cost = (Ir at COUNT N2 - Ir at N1) / (N2 - N1): start-up and shutdown cancel
// out (Benchmarks/adapter-budget.sh).
//
//   AdapterProfile MODE COUNT [PORT]
//   AdapterProfile serve            the loopback server (prints its port, runs until killed)
//
// Every recorded mode records into an `InMemoryTraceStore` bounded to its last 1,000 exchanges, so the store's
// memory stops growing early and alike on both sides of a comparison (an unbounded store's page faults grew with
// the size of each exchange, and an adapter's exchange has one event more than the client's).
//
// In-process modes (no network, no server):
//   client              Loupe's client over a canned transport, no observer: the baseline of the next one
//   client-recorded     the same recorded by a NetworkTraceInspector (the recorder's own cost is the difference)
//   openapi-plain       an OpenAPI ClientTransport called as a generated client calls it, nothing recorded
//   openapi-middleware  the same with LoupeRecordingMiddleware in front (the middleware's cost is the difference)
//   openapi-transport   LoupeTransport over Loupe's client (recorded) over the same canned response
//                       (LoupeTransport's own cost is the difference with client-recorded)
// Loopback modes (`GET /ping` of the `serve` process at PORT on 127.0.0.1, one request at a time; the server's CPU
// is in its own process, not counted):
//   loopback-client, loopback-client-recorded  Loupe's client over AsyncHTTPClientTransport, without and with the
//                       recorder: the recorder's cost for Loupe's client with this server's responses
//   ahc-plain, ahc-recorded                    HTTPClient.execute (async API), then RecordingHTTPClient's
//   ahc-future-plain, ahc-future-recorded      HTTPClient.execute(request:) (EventLoopFuture API), then the wrapper's
//   urlsession-plain, urlsession-recorded      URLSession.data(for:) on an ephemeral session, then on one made
//                                              with `.recorded(by:)` (LoupeURLProtocol)
//   urlsession-delegate-plain, urlsession-delegate-recorded
//                                              dataTask(with:) on a session whose delegate is the app's (it
//                                              keeps the body, hears the end), then the same delegate behind a
//                                              RecordingSessionDelegate (the delegate proxy, JOURNAL J370)
//
// The main thread only waits (a semaphore), the work runs in a task: valgrind 3.19 dies inside itself on a
// binary whose top-level code awaits (its main thread parks in dispatch_main's sigsuspend), and a synchronous
// main runs under it.

/// What a generated client's transport returns for a canned JSON response: a head and a one-chunk body (of known
/// length, as a transport's body of a response with Content-Length is). The same head as `CannedTransport`'s, so
/// the recorder stores the same exchange for the client and for the middleware.
struct CannedOpenAPITransport: OpenAPIRuntime.ClientTransport {
    let body = Array(#"{"id":1,"name":"Ada","active":true}"#.utf8)[...]
    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(self.body))
    }
}

/// An app's own session delegate: keeps the body's size and tells the loop when each task ended.
final class ProfileDelegate: NSObject, URLSessionDataDelegate {
    let bytes = Atomic<Int>(0)
    let ends: AsyncStream<Void>.Continuation
    let endings: AsyncStream<Void>

    override init() {
        (endings, ends) = AsyncStream<Void>.makeStream()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bytes.add(data.count, ordering: .relaxed)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        ends.yield()
    }
}

/// The recorder every recorded mode uses: its store keeps the last 1,000 exchanges (see above).
func makeRecorder() -> NetworkTraceInspector {
    NetworkTraceInspector(store: InMemoryTraceStore(bounds: TraceStoreBounds(maxCount: 1000, maxBytes: nil, maxAge: nil)))
}

/// `GET /ping` through Loupe's client.
struct Ping: Endpoint {
    typealias Response = Data
    var path: String { "/ping" }
    var operationName: String { "GET /ping" }
}

/// The loop runs off the main actor (as in LoupeProfile), as an app's networking code does: from main-actor code
/// every nonisolated `await` would hop to the global executor and back, which is the driver's cost, not the
/// adapter's.
@concurrent func profile(mode: String, count: Int, port: Int?) async throws -> (bytes: Int, recorded: Int) {
    var bytes = 0
    let base = URL(string: "http://127.0.0.1:8080")!
    let json = #"{"id":1,"name":"Ada","active":true}"#
    let canned = CannedTransport(status: .ok, json: json)

    /// The request a generated client hands its transport for `GET /users/{id}`.
    let openAPIRequest = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/users/1",
                                     headerFields: [.accept: "application/json"])
    let loupeRequest = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/users/1",
                                   headerFields: [.accept: "application/json"])
    let loopback = port.map { URL(string: "http://127.0.0.1:\($0)")! }
    let recorded = mode.hasSuffix("-recorded") || mode == "openapi-middleware" || mode == "openapi-transport"
    let inspector = recorded ? makeRecorder() : nil

    switch (mode, loopback) {
    case ("client", _), ("client-recorded", _):
        let client = Client(baseURL: base, transport: canned, observer: inspector ?? NoOpClientObserver())
        for _ in 0..<count {
            bytes += try await client.execute(loupeRequest, options: RequestOptions(operation: "getUser")).body.count
        }
    case ("openapi-plain", _), ("openapi-middleware", _):
        let transport = CannedOpenAPITransport()
        let middleware = inspector.map { LoupeRecordingMiddleware(recorder: $0) }
        for _ in 0..<count {
            let (_, body): (HTTPResponse, HTTPBody?)
            if let middleware {
                (_, body) = try await middleware.intercept(openAPIRequest, body: nil, baseURL: base, operationID: "getUser") {
                    try await transport.send($0, body: $1, baseURL: $2, operationID: "getUser")
                }
            } else {
                (_, body) = try await transport.send(openAPIRequest, body: nil, baseURL: base, operationID: "getUser")
            }
            bytes += try await ArraySlice<UInt8>(collecting: body!, upTo: 1 << 20).count
        }
    case ("openapi-transport", _):
        let transport = LoupeTransport(client: Client(baseURL: base, transport: canned, observer: inspector!))
        for _ in 0..<count {
            let (_, body) = try await transport.send(openAPIRequest, body: nil, baseURL: base, operationID: "getUser")
            bytes += try await ArraySlice<UInt8>(collecting: body!, upTo: 1 << 20).count
        }
    case ("loopback-client", let url?), ("loopback-client-recorded", let url?):
        let client = Client(baseURL: url, transport: AsyncHTTPClientTransport(client: HTTPClient.shared),
                            observer: inspector ?? NoOpClientObserver())
        for _ in 0..<count { bytes += try await client.send(Ping()).count }
    case ("ahc-plain", let url?), ("ahc-recorded", let url?):
        let recording = inspector.map { RecordingHTTPClient(HTTPClient.shared, recorder: $0, bodyCap: $0.configuration.bodyCap) }
        let request = HTTPClientRequest(url: url.absoluteString + "/ping")
        for _ in 0..<count {
            let response = if let recording {
                try await recording.execute(request, timeout: .seconds(30))
            } else {
                try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            }
            bytes += try await response.body.collect(upTo: 1 << 20).readableBytes
        }
    case ("ahc-future-plain", let url?), ("ahc-future-recorded", let url?):
        let recording = inspector.map { RecordingHTTPClient(HTTPClient.shared, recorder: $0, bodyCap: $0.configuration.bodyCap) }
        for _ in 0..<count {
            let request = try HTTPClient.Request(url: url.absoluteString + "/ping")
            let future = recording?.execute(request: request) ?? HTTPClient.shared.execute(request: request)
            let response = try await future.get()
            bytes += response.body?.readableBytes ?? 0
        }
    case ("urlsession-plain", let url?), ("urlsession-recorded", let url?):
        let configuration = URLSessionConfiguration.ephemeral
        let session = URLSession(configuration: inspector.map {
            configuration.recorded(by: $0, bodyCap: $0.configuration.bodyCap)
        } ?? configuration)
        let request = URLRequest(url: url.appendingPathComponent("ping"))
        for _ in 0..<count { bytes += try await session.data(for: request).0.count }
        session.finishTasksAndInvalidate()
    case ("urlsession-delegate-plain", let url?), ("urlsession-delegate-recorded", let url?):
        let app = ProfileDelegate()
        let delegate: any URLSessionDelegate = inspector.map {
            RecordingSessionDelegate(recorder: $0, bodyCap: $0.configuration.bodyCap, forwardingTo: app)
        } ?? app
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        let request = URLRequest(url: url.appendingPathComponent("ping"))
        var ends = app.endings.makeAsyncIterator()
        for _ in 0..<count {
            session.dataTask(with: request).resume()
            _ = await ends.next()
        }
        bytes = app.bytes.load(ordering: .relaxed)
        session.finishTasksAndInvalidate()
    default:
        FileHandle.standardError.write(Data("AdapterProfile: unknown mode \(mode)\(port == nil ? " (or no PORT)" : "")\n".utf8))
        exit(2)
    }
    await inspector?.shutdown()
    return (bytes, inspector?.writtenCount ?? 0)
}

let arguments = CommandLine.arguments
let done = DispatchSemaphore(value: 0)
let outcome = Mutex<Result<String, any Error>?>(nil)
if arguments.count == 2, arguments[1] == "serve" {
    Task.detached {
        let (server, port) = try await LoopbackServer.start(name: "adapter-profile", body: #"{"ok":true,"id":42,"name":"loupe"}"#)
        FileHandle.standardOutput.write(Data("\(port)\n".utf8))
        _ = await server.result
    }
    done.wait()  // never signalled: the script stops the server by its pid
}
guard (3...4).contains(arguments.count), let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: AdapterProfile MODE COUNT [PORT] | AdapterProfile serve\n".utf8))
    exit(2)
}
let (mode, port) = (arguments[1], arguments.count == 4 ? Int(arguments[3]) : nil)
Task.detached {
    do {
        let (bytes, recorded) = try await profile(mode: mode, count: count, port: port)
        outcome.withLock { $0 = .success("\(mode): \(count) requests, \(bytes) body bytes, \(recorded) exchanges recorded") }
    } catch {
        outcome.withLock { $0 = .failure(error) }
    }
    done.signal()
}
done.wait()
switch outcome.withLock({ $0 }) {
case .success(let line): print(line)
case .failure(let error):
    FileHandle.standardError.write(Data("AdapterProfile: \(error)\n".utf8))
    exit(1)
case nil: exit(1)
}
