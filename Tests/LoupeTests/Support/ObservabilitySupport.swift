// Fixtures for the observability tests: a log handler that keeps lines, a retrying middleware, a clocked client.
import Foundation
import HTTPTypes
import Logging
import Loupe
import LoupeTesting
import Synchronization

/// One line a ``CapturingLogHandler`` received.
struct CapturedLog: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
}

/// A swift-log handler that keeps every line in memory, so tests assert on levels, text and metadata without
/// bootstrapping the global logging system.
struct CapturingLogHandler: LogHandler {
    final class Storage: Sendable {
        let lines = Mutex<[CapturedLog]>([])
        var all: [CapturedLog] { lines.withLock { $0 } }
    }

    let storage: Storage
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// A logger at `trace` level writing into a fresh storage.
    static func logger() -> (Logger, Storage) {
        let storage = Storage()
        return (Logger(label: "loupe.tests") { _ in CapturingLogHandler(storage: storage) }, storage)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = CapturedLog(level: event.level, message: event.message.description,
                               metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        storage.lines.withLock { $0.append(line) }
    }
}

/// Sends again while the response is a 503, up to `maxAttempts`, annotating each retry as a real policy would.
struct RetryOn503: ClientMiddleware {
    var maxAttempts: Int

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var context = context
        var response = try await next(request, body, context)
        var attempt = 1
        while response.status.code == 503, attempt < maxAttempts {
            attempt += 1
            context.annotations = AttemptAnnotations(retryReason: "503", retryDelay: .milliseconds(100), circuitState: "closed")
            response = try await next(request, body, context)
        }
        return response
    }
}

/// A client on `clock` at `https://api.example.com/v1`, recording into `observer`.
func makeClockedClient(
    _ transport: any ClientTransport, middlewares: [any ClientMiddleware], clock: ManualClock = ManualClock(),
    observer: any ClientObserver = NoOpClientObserver()
) -> Client {
    var configuration = ClientConfiguration()
    configuration.clock = clock
    return Client(baseURL: URL(string: "https://api.example.com/v1")!, transport: transport, middlewares: middlewares,
                  observer: observer, configuration: configuration)
}

/// A transport answering the statuses in `script` in turn (the last one repeats), after `latency` on `clock`.
func scriptedTransport(_ script: [Int], latency: Duration = .zero, clock: ManualClock? = nil, seen: Recorded<HTTPRequest>? = nil) -> MockTransport {
    let calls = Mutex(0)
    return MockTransport { request, _, _ in
        seen?.append(request)
        let index = calls.withLock { calls in
            defer { calls += 1 }
            return min(calls, script.count - 1)
        }
        clock?.advance(by: latency)
        return RawResponse(status: .init(code: script[index]), headerFields: [.contentType: "application/json"],
                           body: Data(#"{"id":1,"name":"Ada"}"#.utf8))
    }
}
