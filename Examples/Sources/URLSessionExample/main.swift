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

// Or, where the app makes the session with a delegate of its own: a proxy in front of it records each task the
// session's delegate hears of, and nothing is loaded twice (which tasks those are per platform: LoupeURLSession's docs).
let app = AppDelegate()
let recording = RecordingSessionDelegate(recorder: inspector, bodyCap: inspector.configuration.bodyCap, forwardingTo: app)
let delegated = URLSession(configuration: .ephemeral, delegate: recording, delegateQueue: nil)
delegated.dataTask(with: server.appendingPathComponent("users/2")).resume()
for await end in app.ends {  // the app's delegate heard the task's end
    print("GET /users/2: \(end)")
    break
}
delegated.finishTasksAndInvalidate()

await inspector.shutdown()
print("recorded \(inspector.writtenCount) exchanges")

/// The app's own session delegate: it still hears every call, through the proxy.
final class AppDelegate: NSObject, URLSessionDataDelegate {
    let (ends, end) = AsyncStream<String>.makeStream()

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        end.yield("\((task.response as? HTTPURLResponse)?.statusCode ?? 0), \(error.map { "\($0)" } ?? "no error")")
    }
}
