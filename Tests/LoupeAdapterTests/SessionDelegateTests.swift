import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import LoupeDemo
import LoupeTrace
import LoupeURLSession
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's own session delegate behind the proxy: what it heard, and each task's end as it hears it.
final class AppDelegate: NSObject, URLSessionDataDelegate {
    struct Heard {
        var responses: [Int] = []
        var bodies: [Int: Data] = [:]
        var completed: [Int: String] = [:]
    }

    let heard = Mutex(Heard())
    let ends: AsyncStream<Int>.Continuation
    let endings: AsyncStream<Int>

    override init() {
        (endings, ends) = AsyncStream<Int>.makeStream()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        heard.withLock { $0.responses.append((response as? HTTPURLResponse)?.statusCode ?? -1) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        heard.withLock { $0.bodies[dataTask.taskIdentifier, default: Data()].append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        heard.withLock { $0.completed[task.taskIdentifier] = error.map { "\(($0 as? URLError)?.code ?? .unknown)" } ?? "ok" }
        ends.yield(task.taskIdentifier)
    }

    /// Waits until `count` more tasks have completed (as the app's delegate heard it).
    func waitForEnds(_ count: Int) async {
        var iterator = endings.makeAsyncIterator()
        for _ in 0..<count { _ = await iterator.next() }
    }
}

@Suite(.serialized)
struct URLSessionDelegateAdapterTests {
    // A forwarding that loses the end would leave the wait hanging: the time limit makes it a failure.
    @Test(.timeLimit(.minutes(5)))
    func theProxyRecordsTheSessionsTasksWithSecretsRedactedAndTheAppsDelegateHearsEverything() async throws {
        let app = AppDelegate()
        try await withRecorder { url, inspector in
            let recording = RecordingSessionDelegate(recorder: inspector, bodyCap: inspector.configuration.bodyCap,
                                                     forwardingTo: app)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-App": "demo"]
            let session = URLSession(configuration: configuration, delegate: recording, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let request = secretEchoRequest(url)
            session.dataTask(with: request).resume()
            await app.waitForEnds(1)
            session.dataTask(with: url.appendingPathComponent("users/99")).resume()
            await app.waitForEnds(1)
            #expect(recording.tasksInFlight == 0, "a completed task left its state behind")
            let heard = app.heard.withLock { $0 }
            #expect(heard.responses == [200, 404])
            #expect(heard.completed.values.sorted() == ["ok", "ok"])
            #expect(heard.bodies.values.contains { String(decoding: $0, as: UTF8.self).contains(secret) },
                    "the app's delegate got the echoed body, secret and all")
        } check: { store, file in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["POST /echo", "GET /users/99"])
            #expect(recorded.map(\.status) == [200, 404])
            #expect(recorded.map(\.outcome) == [.success, .httpError])
            for exchange in recorded {
                #expect(exchange.events.first?.attributes["adapter"] == "urlsession")
                #expect(exchange.requestHeaders.contains { $0.name == "X-App" && $0.value == "demo" })
            }
            #expect(recorded[0].requestBody != nil)
            #expect(text(recorded[0].responseBody).contains("LP-1"))
            #expect(text(recorded[1].responseBody).contains("no such user"))
            try expectNoSecret(in: file)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aCancelledTaskIsRecordedCancelledAndTheAppsDelegateHearsTheCancel() async throws {
        try await SlowRequestFixture.with { fixture in
            let inspector = fixture.inspector
            let app = AppDelegate()
            let recording = RecordingSessionDelegate(recorder: inspector, forwardingTo: app)
            let session = URLSession(configuration: .ephemeral, delegate: recording, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            // The server holds this for 10 s: a cancel that does not end it is answered and recorded a success.
            let task = session.dataTask(with: fixture.slowURL)
            task.resume()
            try await fixture.waitForTheSlowRequest()
            task.cancel()
            await app.waitForEnds(1)
            #expect(app.heard.withLock { $0.completed.values.first } == "\(URLError.Code.cancelled)")
            #expect(recording.tasksInFlight == 0)
            try await fixture.expectOneCancelledSlowRequest()
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aServerThatDiesMidBodyIsRecordedFailedWithTheBytesThatCame() async throws {
        let app = AppDelegate()
        try await withRecorder { url, inspector in
            let recording = RecordingSessionDelegate(recorder: inspector, forwardingTo: app)
            let session = URLSession(configuration: .ephemeral, delegate: recording, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            // `/cut` declares 1,000 bytes, sends 100 and drops the connection.
            session.dataTask(with: url.appendingPathComponent("cut")).resume()
            await app.waitForEnds(1)
            #expect(app.heard.withLock { $0.completed.values.first } != "ok", "the app's delegate heard an error")
            #expect(recording.tasksInFlight == 0)
        } check: { store, _ in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["GET /cut"])
            #expect(recorded.first?.outcome == .transportError)
            #expect(recorded.first?.status == 200)
            #expect(text(recorded.first?.responseBody) == String(repeating: "a", count: 100))
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func withoutAnAppDelegateTheSessionStillWorksAndAPerTaskUseRecordsNothingAndKeepsNothing() async throws {
        let app = AppDelegate()
        try await withRecorder { url, inspector in
            let ends = ExchangeEnds()
            let recording = RecordingSessionDelegate(recorder: MultiplexClientObserver([inspector, ends]))
            let session = URLSession(configuration: .ephemeral, delegate: recording, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            // A completion-handler task does not call the session's delegate on FoundationNetworking: not recorded.
            let (data, response) = try await session.data(for: URLRequest(url: url.appendingPathComponent("users/1")))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(!data.isEmpty)
            // The proxy as a per-task delegate of another session: never told of the end on Linux, so it keeps
            // nothing (it records only as its session's delegate).
            let other = URLSession(configuration: .ephemeral, delegate: app, delegateQueue: nil)
            defer { other.finishTasksAndInvalidate() }
            _ = try await other.data(for: URLRequest(url: url.appendingPathComponent("users/1")), delegate: recording)
            #expect(recording.tasksInFlight == 0)
            // A delegate-style task with no app delegate behind the proxy: recorded, the session unaffected.
            let delegated = session.dataTask(with: url.appendingPathComponent("users/2"))
            delegated.resume()
            // No delegate of the app's to hear the end: the recorder's does (the only exchange recorded here).
            await ends.next("GET /users/2")
        } check: { store, _ in
            let recorded = try exchanges(store)
            #if canImport(FoundationNetworking)
            #expect(recorded.map(\.operation) == ["GET /users/2"])
            #endif
            #expect(recorded.last?.status == 200)
        }
    }
}

@Suite struct RecordedHeadTests {
    /// The recorder's head of a response is the one HTTPTypesFoundation makes, without its dictionary cast.
    @Test func theRecordedHeadHasTheSameStatusAndFieldsAsHTTPTypesFoundations() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/users/1"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Type": "application/json", "X-Request-Id": "abc-1", "Set-Cookie": "a=1", "Server": "demo",
        ]))
        let head = try #require(response.recordedHead)
        let expected = try #require(response.httpResponse)
        #expect(head.status == expected.status)
        #expect(head.headerFields.count == 4)
        #expect(Set(head.headerFields.map { "\($0.name.canonicalName)=\($0.value)" })
            == Set(expected.headerFields.map { "\($0.name.canonicalName)=\($0.value)" }))
        #expect(head.headerFields[.contentType] == "application/json")
    }
}
