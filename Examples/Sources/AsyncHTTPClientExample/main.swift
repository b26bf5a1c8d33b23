import AsyncHTTPClient
import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeTrace

// Usage: AsyncHTTPClientExample BASE-URL STORE. Calls the demo API with AsyncHTTPClient, through one wrapper.
let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: AsyncHTTPClientExample BASE-URL STORE\n".utf8))
    exit(2)
}
let inspector = NetworkTraceInspector(store: try SQLiteTraceStore(path: arguments[2]))

// AsyncHTTPClient used directly: call sites keep calling `execute`.
let http = RecordingHTTPClient(HTTPClient.shared, recorder: inspector)
let response = try await http.execute(HTTPClientRequest(url: "\(server)/users/1"), timeout: .seconds(30))
let body = try await response.body.collect(upTo: 1 << 20)
print("GET /users/1: \(response.status.code), \(body.readableBytes) bytes")

let old = try await http.execute(request: HTTPClient.Request(url: "\(server)/health")).get()
print("GET /health: \(old.status.code) (EventLoopFuture API)")

await inspector.shutdown()
print("recorded \(inspector.writtenCount) exchanges")
