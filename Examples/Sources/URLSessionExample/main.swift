import Foundation
import Loupe
import LoupeTrace
import LoupeURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Usage: URLSessionExample BASE-URL STORE. Calls the demo API with a URLSession made from a recorded configuration.
let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: URLSessionExample BASE-URL STORE\n".utf8))
    exit(2)
}
let inspector = NetworkTraceInspector(store: try SQLiteTraceStore(path: arguments[2]))

// URLSession (Apple platforms and Linux's FoundationNetworking; limits in LoupeURLSession's docs):
let session = URLSession(configuration: URLSessionConfiguration.ephemeral.recorded(by: inspector))
let (data, response) = try await session.data(from: server.appendingPathComponent("users"))
print("GET /users: \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data.count) bytes")

session.finishTasksAndInvalidate()
await inspector.shutdown()
print("recorded \(inspector.writtenCount) exchanges")
