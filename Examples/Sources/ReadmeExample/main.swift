import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeTrace

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
print(user)
await inspector.shutdown()                                 // flushes what is still queued
