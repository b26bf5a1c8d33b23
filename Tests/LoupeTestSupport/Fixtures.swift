// Shared fixtures: a client over LoupeTesting's ScriptedTransport, middlewares that annotate attempts.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization


/// Retries once after a 503, annotating the retry the way the real retry middleware does.
struct RetryOnceMiddleware: ClientMiddleware {
    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var context = context
        context.annotations = AttemptAnnotations(circuitState: "closed")
        let first = try await next(request, body, context)
        guard first.status.code == 503 else { return first }
        context.record(.retryScheduled, "Retrying after 503 in 250 ms", attributes: ["delay": "0.25"])
        context.annotations = AttemptAnnotations(retryReason: "503", retryDelay: .milliseconds(250), circuitState: "closed")
        return try await next(request, body, context)
    }
}

/// Fixed times and ids so recorded exchanges can be compared exactly.
enum Fixture {
    /// A client whose one exchange (id `id`) streams a 200 body in three chunks, `first second third`.
    static func threeChunkClient(observer: any ClientObserver, id: UUID) -> Client {
        let transport = StreamingMockTransport { _, _, _ in
            let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            for chunk in ["first ", "second ", "third"] { continuation.yield(Data(chunk.utf8)) }
            continuation.finish()
            return StreamedResponse(head: HTTPResponse(status: .ok), body: chunks)
        }
        return Client(baseURL: URL(string: "https://api.example.test")!, transport: transport, observer: observer,
                      configuration: configuration(ids: [id]))
    }

    /// A time exactly representable both since 1970 and since 2001, so it survives storage unchanged.
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func configuration(ids: [UUID] = []) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        let tick = Mutex(0.0)
        configuration.now = {
            tick.withLock { value in
                defer { value += 0.125 }
                return start.addingTimeInterval(value)
            }
        }
        let queue = Mutex(ids)
        configuration.makeID = { queue.withLock { $0.isEmpty ? UUID() : $0.removeFirst() } }
        return configuration
    }

    static func client(
        _ steps: [ScriptedTransport.Step], middlewares: [any ClientMiddleware] = [], observer: any ClientObserver,
        ids: [UUID] = []
    ) -> Client {
        Client(
            baseURL: URL(string: "https://api.example.test")!, transport: ScriptedTransport(steps),
            middlewares: middlewares, observer: observer, configuration: configuration(ids: ids))
    }

    static func request(_ url: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: url)!, headerFields: headers)
    }
}
