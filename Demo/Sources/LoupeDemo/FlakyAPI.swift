import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// A small API on 127.0.0.1 that misbehaves on purpose, so the demo (and the integration tests) have something
/// worth inspecting: 5xx in bursts, slow answers, a bearer-protected route, JSON lists.
public enum FlakyAPI {
    /// The token `/secure/profile` accepts.
    public static let demoToken = "demo-token-7f3a"

    /// A running server; stop it with ``RunningServer/stop()``.
    public struct RunningServer: Sendable {
        public let port: Int
        let task: Task<Void, any Error>
        /// What the access log has recorded, for ``arrival(of:)``; `nil` without an access log.
        let arrivals: Arrivals?

        /// `http://127.0.0.1:PORT`.
        public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

        /// Returns once the access log has recorded `line` (`GET /slow`), at once if it already has: a test waits for
        /// a request to reach the server without polling the log's file. Only for a server started with an
        /// `accessLog`. Cancelling the waiting task ends the wait.
        public func arrival(of line: String) async {
            guard let arrivals else { preconditionFailure("arrival(of:) needs a server started with an accessLog") }
            await arrivals.wait(for: line)
        }

        /// Stops the server and waits until it has closed its socket.
        public func stop() async {
            task.cancel()
            _ = await task.result
        }
    }

    /// Starts the API on `port` (0 picks a free ephemeral port) and returns once it accepts connections.
    public static func start(port: Int = 0, logger: Logger = Logger(label: "loupe.demo.api", factory: { _ in SwiftLogNoOpLogHandler() }),
                             accessLog: String? = nil) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // The server's own log of what reached it (`LOUPE_DEMO_API_LOG`): tests tell a mock from a real answer by it.
        let log = accessLog.flatMap(AccessLog.init(path:))
        let router = makeRouter(accessLog: log)
        let app = Application(
            router: router,
            // `/ticker` upgrades to a WebSocket before routing; every other request goes to the router.
            server: .http1WebSocketUpgrade(shouldUpgrade: tickerUpgrade(accessLog: log)),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "loupe-demo"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            },
            logger: logger
        )
        let task = Task {
            // A server that never ran (its port in use) ends the wait for its port too, or `start` would hang.
            defer { continuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        for await bound in ports {
            return RunningServer(port: bound, task: task, arrivals: log?.arrivals)
        }
        let failure = await task.result
        if case .failure(let error) = failure { throw error }
        throw CancellationError()
    }
}

/// Appends `METHOD /path` for every request the demo API receives, one line each.
struct AccessLog: RouterMiddleware {
    typealias Context = BasicRequestContext
    private final class File: Sendable {
        let handle: Mutex<FileHandle>
        init(_ handle: FileHandle) { self.handle = Mutex(handle) }
    }
    private let file: File
    /// The lines written so far, which ``FlakyAPI/RunningServer/arrival(of:)`` waits on.
    let arrivals = Arrivals()

    init?(path: String) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path)
        else { return nil }
        file = File(handle)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        record("\(request.method) \(request.uri.path)")
        return try await next(request, context)
    }

    /// Appends `line` (a WebSocket upgrade, which never reaches the router, is logged this way).
    func record(_ line: String) {
        let bytes = Data((line + "\n").utf8)
        file.handle.withLock { $0.write(bytes) }
        arrivals.record(line)
    }
}

/// The distinct lines an access log has written, and the tasks waiting for one.
final class Arrivals: Sendable {
    private struct State {
        var seen: Set<String> = []
        var waiting: [UInt64: (line: String, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func record(_ line: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.seen.insert(line).inserted else { return [] }
            let due = state.waiting.filter { $0.value.line == line }
            for id in due.keys { state.waiting[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(for line: String) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.seen.contains(line) || Task.isCancelled { return true }
                    state.waiting[id] = (line, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
