import Foundation
import HTTPTypes
import Loupe
import LoupeOpenAPI
import LoupeTesting
import LoupeTrace
import OpenAPIRuntime

// The adapters' CPU per request, for `valgrind --tool=callgrind` (instruction counts, DECISIONS 259): one process
// per mode runs COUNT requests against in-process transports (no network, no server), so only the client, the
// adapter and the recorder (its background writer included, into an in-memory store) are counted.
//
//   AdapterProfile MODE COUNT
//
// Per-request cost = (instructions at COUNT 4000 - at COUNT 2000) / 2000: start-up and shutdown cancel out.
// Modes:
//   client            Loupe's client, no observer: the baseline of the next one
//   client-recorded   Loupe's client recorded by a NetworkTraceInspector (the recorder's own cost is the difference)
//   openapi-plain     an OpenAPI ClientTransport called as a generated client calls it, nothing recorded
//   openapi-middleware  the same with LoupeRecordingMiddleware in front (the middleware's cost is the difference)
//   openapi-transport   LoupeTransport over Loupe's client (recorded) over the same canned response
//                       (LoupeTransport's own cost is the difference with client-recorded)

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: AdapterProfile MODE COUNT\n".utf8))
    exit(2)
}
let mode = arguments[1]
/// What a generated client's transport returns for a canned JSON response: a head and a one-chunk body.
struct CannedOpenAPITransport: OpenAPIRuntime.ClientTransport {
    let body = Array(#"{"id":1,"name":"Ada","active":true}"#.utf8)[...]
    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .contentLength: String(self.body.count)]),
         HTTPBody(self.body))
    }
}

/// The loop runs off the main actor (as in LoupeProfile), as an app's networking code does: top-level code is main-actor isolated, and
/// every nonisolated `await` from it would hop to the global executor and back, which is the driver's cost, not
/// the adapter's (it was most of the difference between the modes: perf showed the time in task switches).
@concurrent func profile(mode: String, count: Int) async throws -> Int {
    var bytes = 0
    let base = URL(string: "http://127.0.0.1:8080")!
    let json = #"{"id":1,"name":"Ada","active":true}"#
    let canned = CannedTransport(status: .ok, json: json)

    /// The request a generated client hands its transport for `GET /users/{id}`.
    let openAPIRequest = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/users/1",
                                     headerFields: [.accept: "application/json"])
    let loupeRequest = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/users/1",
                                   headerFields: [.accept: "application/json"])

    switch mode {
    case "client", "client-recorded":
        let inspector = mode == "client" ? nil : NetworkTraceInspector(store: InMemoryTraceStore())
        let client = Client(baseURL: base, transport: canned, observer: inspector ?? NoOpClientObserver())
        for _ in 0..<count {
            bytes += try await client.execute(loupeRequest, options: RequestOptions(operation: "getUser")).body.count
        }
        await inspector?.shutdown()
    case "openapi-plain", "openapi-middleware":
        let transport = CannedOpenAPITransport()
        let inspector = mode == "openapi-plain" ? nil : NetworkTraceInspector(store: InMemoryTraceStore())
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
        await inspector?.shutdown()
    case "openapi-transport":
        let inspector = NetworkTraceInspector(store: InMemoryTraceStore())
        let transport = LoupeTransport(client: Client(baseURL: base, transport: canned, observer: inspector))
        for _ in 0..<count {
            let (_, body) = try await transport.send(openAPIRequest, body: nil, baseURL: base, operationID: "getUser")
            bytes += try await ArraySlice<UInt8>(collecting: body!, upTo: 1 << 20).count
        }
        await inspector.shutdown()
    default:
        FileHandle.standardError.write(Data("AdapterProfile: unknown mode \(mode)\n".utf8))
        exit(2)
    }
    return bytes
}

let bytes = try await profile(mode: mode, count: count)
print("\(mode): \(count) requests, \(bytes) body bytes")
