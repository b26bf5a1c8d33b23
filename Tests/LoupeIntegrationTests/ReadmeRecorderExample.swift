// The README's "Record your app" example, word for word (its imports here at the top, the rest inside a function so
// its type stays local): if the README's code stops compiling, the test build says so. `.ci/e2e-readme.sh` checks
// that every paragraph of the README's example is here.
import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeTrace

private func readmeRecorderExample() async throws {
struct GetUser: Endpoint {
    typealias Response = String                             // any Decodable
    let id: Int
    var path: String { "/users/\(id)" }
    var operationName: String { "getUser" }
}

let store = try SQLiteTraceStore(path: StoreLocation.defaultPath())
let inspector = NetworkTraceInspector(store: store)        // never blocks or fails a request
let client = Client.resilient(baseURL: URL(string: "https://api.example.com")!, observer: inspector)
let user = try await client.send(GetUser(id: 1))
await inspector.shutdown()                                 // flushes what is still queued

_ = user
}
