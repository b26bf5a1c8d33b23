import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeDemoAPIClient
import LoupeOpenAPI
import LoupeQuery
import LoupeTrace
import LoupeURLSession
import NIOCore
import NIOHTTP1
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A secret the app sends in `Authorization` and in a JSON body field, and the demo server echoes back.
let secret = "adapter-secret-4f2a9c"

/// Runs `body` with the demo API on 127.0.0.1, a real SQLite store in a temporary folder and a recorder on it;
/// the recorder is shut down (everything written) before `check` reads the store and its file.
func withRecorder(
    _ body: (URL, NetworkTraceInspector) async throws -> Void,
    check: (SQLiteTraceStore, URL) throws -> Void
) async throws {
    let server = try await FlakyAPI.start(port: 0)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-adapters-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("traces.sqlite")
    let store = try SQLiteTraceStore(path: file.path)
    let inspector = NetworkTraceInspector(store: store)
    do {
        try await body(server.baseURL, inspector)
    } catch {
        await server.stop()
        throw error
    }
    await inspector.shutdown()
    await server.stop()
    try check(store, file)
}

/// Every byte of the store's files (the database and its write-ahead log) holds no `secret`.
func expectNoSecret(in file: URL) throws {
    for path in [file.path, file.path + "-wal"] where FileManager.default.fileExists(atPath: path) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in \(path)")
    }
    // And the check itself can fail: the store holds the redaction marker where the secret was.
    let bytes = try Data(contentsOf: file) + ((try? Data(contentsOf: URL(fileURLWithPath: file.path + "-wal"))) ?? Data())
    #expect(bytes.range(of: Data("LP-1".utf8)) != nil)
}

/// `POST /echo` carrying `secret` in `Authorization` and in its JSON body, which the demo server echoes back.
func secretEchoRequest(_ url: URL) -> URLRequest {
    var request = URLRequest(url: url.appendingPathComponent("echo"))
    request.httpMethod = "POST"
    request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"item":"LP-1","token":"\#(secret)"}"#.utf8)
    return request
}

/// A recorded body as text ("" when none).
func text(_ body: TraceBody?) -> String {
    String(decoding: body?.data ?? Data(), as: UTF8.self)
}

func exchanges(_ store: SQLiteTraceStore) throws -> [TraceExchange] {
    try store.exchanges(matching: nil, limit: 1000).sorted { $0.startedAt < $1.startedAt }
}

/// The demo API with its access log, and a recorder on a real SQLite store, in a temporary folder: for the tests
/// that cancel a request once the server has it.
struct SlowRequestFixture {
    let folder: URL
    let accessLog: String
    let server: FlakyAPI.RunningServer
    let store: SQLiteTraceStore
    let inspector: NetworkTraceInspector

    /// Runs `body` with the fixture; the folder is removed afterwards (the test stops the server and the recorder).
    static func with(_ body: (SlowRequestFixture) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-slow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let accessLog = folder.appendingPathComponent("access.log").path
        let server = try await FlakyAPI.start(port: 0, accessLog: accessLog)
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        try await body(SlowRequestFixture(folder: folder, accessLog: accessLog, server: server, store: store,
                                          inspector: NetworkTraceInspector(store: store)))
    }

    /// `/slow` held for 10 s: only a cancel ends it sooner.
    var slowURL: URL {
        server.baseURL.appendingPathComponent("slow").appending(queryItems: [URLQueryItem(name: "ms", value: "10000")])
    }

    /// Stops the recorder and the server, then expects the store to hold the one `/slow` request, cancelled.
    func expectOneCancelledSlowRequest() async throws {
        await inspector.shutdown()
        await server.stop()
        let recorded = try exchanges(store)
        #expect(recorded.map(\.operation) == ["GET /slow"])
        #expect(recorded.first?.outcome == .cancelled)
        #expect(recorded.first?.status == nil)
    }

    /// Returns once the server has logged `GET /slow`.
    func waitForTheSlowRequest() async throws {
        await server.arrival(of: "GET /slow")
    }
}

@Suite struct OpenAPIAdapterTests {
    @Test func theMiddlewareRecordsEveryCallOfAGeneratedClientOnItsOwnTransport() async throws {
        try await withRecorder { url, inspector in
            let client = LoupeDemoAPIClient.Client(
                serverURL: url, transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(),
                middlewares: [LoupeRecordingMiddleware(recorder: inspector)])
            let users = try await client.listUsers().ok.body.json
            #expect(users.count == 9)
            let user = try await client.getUser(path: .init(id: 2)).ok.body.json
            #expect(user.name == "Grace")
            if case .notFound = try await client.getUser(path: .init(id: 99)) {} else { Issue.record("expected 404") }
            let order = try await client.createOrder(body: .json(.init(item: "LP-1", quantity: 2, token: secret)))
            #expect(try order.created.body.json.received.item == "LP-1")
            // A body of unknown length, streamed to the app and teed into the recorder.
            let binary = try await client.getBinary().ok.body.binary
            #expect(try await [UInt8](collecting: binary, upTo: 1024).count == 64)
        } check: { store, file in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["listUsers", "getUser", "getUser", "createOrder", "getBinary"])
            #expect(recorded.map(\.status) == [200, 200, 404, 201, 200])
            for exchange in recorded {
                #expect(exchange.events.first?.kind == .adapter)
                #expect(exchange.events.first?.attributes["adapter"] == "openapi-middleware")
                #expect(exchange.attempts.count == 1)
                #expect(exchange.responseHeaders.contains { $0.name.lowercased() == "content-type" })
            }
            #expect(recorded[0].url.hasSuffix("/users"))
            #expect(text(recorded[1].responseBody).contains("Grace"))
            #expect(recorded[3].requestBody != nil)
            #expect(recorded[4].responseBody?.size == 64)
            try expectNoSecret(in: file)
        }
    }

    @Test func throughTheTransportFlakyRetriesAreAttemptsOfOneExchangeAndBreakerRefusalsAreRecorded() async throws {
        try await withRecorder { url, inspector in
            var options = ResilienceOptions()
            // The flaky route fails at most 4 in a row (with Retry-After: 1), so 6 attempts always get through.
            options.retry = RetryPolicy(maxAttempts: 6, backoff: .constant(.milliseconds(1)))
            options.retryBudgetRatio = nil
            var breaker = CircuitBreakerConfiguration()
            breaker.minimumNumberOfCalls = 4
            breaker.slidingWindow = .count(4)
            options.circuitBreaker = nil
            let loupe = Loupe.Client.resilient(baseURL: url, transport: LoupeAsyncHTTPClient.AsyncHTTPClientTransport(), observer: inspector,
                                         options: options)
            let client = LoupeDemoAPIClient.Client(serverURL: url, transport: LoupeTransport(client: loupe))
            for _ in 0..<8 {
                _ = try await client.getFlaky().ok
            }
            // A breaker that opens after 4 failed calls, for the always-failing route.
            options.circuitBreaker = breaker
            options.circuitKeying = .endpoint
            let guarded = LoupeDemoAPIClient.Client(serverURL: url, transport: LoupeTransport(client: Loupe.Client.resilient(
                baseURL: url, transport: LoupeAsyncHTTPClient.AsyncHTTPClientTransport(), observer: inspector, options: options)))
            for _ in 0..<6 {
                _ = try? await guarded.getBurst()
            }
        } check: { store, file in
            let recorded = try exchanges(store)
            let flaky = recorded.filter { $0.operation == "getFlaky" }
            #expect(flaky.count == 8)
            #expect(flaky.allSatisfy { $0.status == 200 })
            #expect(flaky.contains { $0.attempts.count > 1 }, "a 5xx burst was retried within one exchange")
            let burst = recorded.filter { $0.operation == "getBurst" }
            #expect(burst.count == 6)
            #expect(burst.contains { $0.outcome == .shortCircuited }, "the open breaker's refusals are recorded")
            #expect(recorded.allSatisfy { !$0.events.contains { $0.kind == .adapter } }, "sent by Loupe's client")
        }
    }

    @Test func aStreamedResponseStaysStreamedThroughTheTransport() async throws {
        try await withRecorder { url, inspector in
            let loupe = Loupe.Client(baseURL: url, transport: LoupeAsyncHTTPClient.AsyncHTTPClientTransport(), observer: inspector)
            let client = LoupeDemoAPIClient.Client(serverURL: url, transport: LoupeTransport(client: loupe))
            let body = try await client.getBinary().ok.body.binary
            #expect(body.iterationBehavior == .single, "handed over as a stream, not collected")
            #expect(try await [UInt8](collecting: body, upTo: 1024) == (0..<64).map { UInt8($0 * 7 % 256) })
        } check: { store, _ in
            let recorded = try exchanges(store)
            #expect(recorded.count == 1)
            #expect(recorded.first?.operation == "getBinary")
            #expect(recorded.first?.responseBody?.size == 64)
        }
    }
}

@Suite struct AsyncHTTPClientAdapterTests {
    @Test func bothExecuteAPIsAreRecordedWithSecretsRedacted() async throws {
        try await withRecorder { url, inspector in
            let http = RecordingHTTPClient(HTTPClient.shared, recorder: inspector, bodyCap: inspector.configuration.bodyCap)
            var request = HTTPClientRequest(url: url.absoluteString + "/echo?page=1")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(secret)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"item":"LP-1","token":"\#(secret)"}"#))
            let response = try await http.execute(request, timeout: .seconds(10))
            #expect(response.status == .ok)
            let echoed = try await response.body.collect(upTo: 1 << 20)
            #expect(String(buffer: echoed).contains(secret), "the server really echoed the secret")

            var old = try HTTPClient.Request(url: url.absoluteString + "/orders", method: .POST)
            old.headers.add(name: "Authorization", value: "Bearer \(secret)")
            old.body = .string(#"{"item":"LP-2","token":"\#(secret)"}"#)
            let created = try await http.execute(request: old).get()
            #expect(created.status == .created)
        } check: { store, file in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["POST /echo", "POST /orders"])
            #expect(recorded.map(\.status) == [200, 201])
            for exchange in recorded {
                #expect(exchange.events.first?.attributes["adapter"] == "async-http-client")
                #expect(exchange.requestHeaders.contains { $0.name == "Authorization" })
                #expect(exchange.responseBody != nil)
            }
            #expect(recorded[1].requestBody != nil, "the future API's request body is recorded as written")
            try expectNoSecret(in: file)
        }
    }
}

// On FoundationNetworking these crashed the process (a dispatch_sync on the queue it ran on,
// __DISPATCH_WAIT_FOR_QUEUE__) until the inner task was started off the loading system's queue (DECISIONS 154).
@Suite(.serialized)
struct URLSessionAdapterTests {
    @Test func aSessionConfiguredToRecordIsRecordedWithSecretsRedacted() async throws {
        try await withRecorder { url, inspector in
            let session = URLSession(configuration: URLSessionConfiguration.ephemeral.recorded(by: inspector))
            defer { session.finishTasksAndInvalidate() }
            let request = secretEchoRequest(url)
            let (data, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains(secret), "the server really echoed the secret")
            let (_, missing) = try await session.data(from: url.appendingPathComponent("users/99"))
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        } check: { store, file in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["POST /echo", "GET /users/99"])
            #expect(recorded.map(\.status) == [200, 404])
            for exchange in recorded {
                #expect(exchange.events.first?.attributes["adapter"] == "urlsession")
                #expect(!exchange.requestHeaders.contains { $0.name == "X-Loupe-Recorder" })
            }
            #expect(recorded[0].requestBody != nil)
            #expect(text(recorded[1].responseBody).contains("no such user"))
            try expectNoSecret(in: file)
        }
    }

    /// The protocol removes its token field only when the request carries it (DECISIONS 155): one that does (an
    /// app that set it itself) still reaches the server, and the recording, without it.
    @Test func aTokenFieldTheRequestCarriesIsNeitherSentNorRecorded() async throws {
        try await withRecorder { url, inspector in
            let session = URLSession(configuration: URLSessionConfiguration.ephemeral.recorded(by: inspector))
            defer { session.finishTasksAndInvalidate() }
            var request = URLRequest(url: url.appendingPathComponent("echo"))
            request.setValue("not-a-token", forHTTPHeaderField: "X-Loupe-Recorder")
            let (data, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(!String(decoding: data, as: UTF8.self).lowercased().contains("x-loupe-recorder"), "the server got the token")
        } check: { store, _ in
            let recorded = try exchanges(store)
            #expect(recorded.map(\.operation) == ["GET /echo"])
            for exchange in recorded {
                #expect(!exchange.requestHeaders.contains { $0.name.lowercased().contains("x-loupe-recorder") })
                #expect(!exchange.responseHeaders.contains { $0.name.lowercased().contains("x-loupe-recorder") })
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingTheAppsTaskCancelsTheRequestAndRecordsItCancelled() async throws {
        try await SlowRequestFixture.with { fixture in
            let (store, inspector) = (fixture.store, fixture.inspector)
            let ends = ExchangeEnds()
            let recorder = MultiplexClientObserver([inspector, ends])
            let session = URLSession(configuration: URLSessionConfiguration.ephemeral.recorded(by: recorder))
            defer { session.invalidateAndCancel() }
            let (answers, answer) = AsyncStream<(any Error)?>.makeStream()
            let task = session.dataTask(with: fixture.slowURL) { _, _, error in answer.yield(error) }
            task.resume()
            try await fixture.waitForTheSlowRequest()
            task.cancel()
            var iterator = answers.makeAsyncIterator()
            let error = await iterator.next() ?? nil
            #expect((error as? URLError)?.code == .cancelled)
            // The cancelled inner request reaches the recorder from FoundationNetworking's own queue: its end is
            // awaited, then written. A missed cancel still ends (the server answers 200 after its 10 s hold) and is
            // caught by the outcome below.
            await ends.next("GET /slow")
            await inspector.flush()
            #expect(try store.count() > 0, "the inner request ran on after the app's task was cancelled")
            try await fixture.expectOneCancelledSlowRequest()
        }
    }
}
