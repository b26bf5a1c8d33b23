import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("NetworkTraceInspector")
struct NetworkTraceInspectorTests {
    @Test("a retried exchange becomes one redacted trace with both attempts and the retry event")
    func retriedExchange() async throws {
        let store = InMemoryTraceStore()
        let policy = RedactionPolicy(queryItemNames: ["token"], jsonFieldNames: ["password"])
        let inspector = NetworkTraceInspector(store: store, configuration: .init(redaction: policy))
        let id = UUID()
        let client = Fixture.client(
            [.status(503), .status(200, headers: [.contentType: "application/json", .setCookie: "s=1"],
                                     body: Data(#"{"ok":true,"password":"back"}"#.utf8))],
            middlewares: [AuthenticationMiddleware(StaticTokenAuthenticator(token: "SECRET-123")), RetryOnceMiddleware()], observer: inspector, ids: [id])

        let request = Fixture.request(
            "https://api.example.test/login?token=abc&page=1", method: .post, headers: [.contentType: "application/json"])
        _ = try await client.execute(
            request, body: .string(#"{"user":"ada","password":"hunter2"}"#), options: RequestOptions(operation: "login"))
        await inspector.flush()

        let trace = try #require(try store.exchange(id: id))
        #expect(trace.operation == "login")
        #expect(trace.method == "POST")
        #expect(trace.url == "https://api.example.test/login?token=%5BREDACTED%5D&page=1")
        #expect(trace.outcome == .success)
        #expect(trace.status == 200)
        #expect(trace.error == nil)
        #expect(trace.startedAt == Fixture.start)
        #expect(trace.endedAt != nil)
        #expect(trace.requestHeaders.contains(TraceHeader(name: "Authorization", value: RedactionPolicy.marker)))
        #expect(trace.requestHeaders.contains(TraceHeader(name: "Content-Type", value: "application/json")))
        #expect(trace.requestBody?.data == Data(#"{"user":"ada","password":"[REDACTED]"}"#.utf8))
        #expect(trace.requestBody?.size == 35)
        #expect(trace.responseHeaders == [
            TraceHeader(name: "Content-Type", value: "application/json"),
            TraceHeader(name: "Set-Cookie", value: RedactionPolicy.marker),
        ])
        #expect(trace.responseBody?.data == Data(#"{"ok":true,"password":"[REDACTED]"}"#.utf8))

        #expect(trace.attempts.count == 2)
        let (first, second) = (trace.attempts[0], trace.attempts[1])
        #expect(first.number == 1 && first.status == 503 && first.retryReason == nil && first.circuitState == "closed")
        #expect(second.number == 2 && second.status == 200 && second.retryReason == "503")
        #expect(second.retryDelay == 0.25)
        #expect(second.circuitState == "closed")
        #expect(first.requestSentAt != nil && first.firstByteAt != nil && first.endedAt != nil)
        #expect(first.startedAt < second.startedAt)

        #expect(trace.events.map(\.kind) == ["retry"])
        #expect(trace.events.first?.attributes == ["delay": "0.25"])
    }

    @Test("a transport failure is recorded with its outcome and error on the exchange and the attempt")
    func transportFailure() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(store: store)
        let id = UUID()
        let client = Fixture.client([.error(TransportError(.connectFailed, "refused"))], observer: inspector, ids: [id])
        await #expect(throws: ClientError.self) {
            _ = try await client.execute(Fixture.request("https://api.example.test/down"))
        }
        await inspector.flush()

        let trace = try #require(try store.exchange(id: id))
        #expect(trace.outcome == .transportError)
        #expect(trace.status == nil)
        #expect(trace.error?.contains("refused") == true)
        #expect(trace.attempts.count == 1)
        #expect(trace.attempts[0].error?.contains("connect failed") == true)
        #expect(trace.responseBody == nil)
    }

    @Test("bodies over the cap are stored cut and marked truncated, redacted before the cut")
    func bodyCap() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(
            store: store, configuration: .init(bodyCap: 24, redaction: RedactionPolicy(jsonFieldNames: ["password"])))
        let long = Data(#"{"a":"0123456789012345678901234567890123456789","password":"SECRET-123"}"#.utf8)
        let short = Data("0123456789".utf8)
        let id = UUID()
        let client = Fixture.client([.status(200, body: short)], observer: inspector, ids: [id])
        _ = try await client.execute(Fixture.request("https://api.example.test/upload", method: .put), body: .data(long))
        await inspector.flush()

        let trace = try #require(try store.exchange(id: id))
        let request = try #require(trace.requestBody)
        #expect(request.isTruncated)
        #expect(request.size == long.count)
        #expect(request.data.count == 24)
        #expect(!String(decoding: request.data, as: UTF8.self).contains("SECRET"))
        #expect(trace.responseBody == TraceBody(data: short, size: 10, isTruncated: false))
    }

    @Test("many clients can share one inspector; flush waits for every finished exchange")
    func manyClients() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(store: store, configuration: .init(batchSize: 7))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                let client = Fixture.client([.status(204)], observer: inspector)
                group.addTask {
                    for _ in 0..<50 { _ = try? await client.execute(Fixture.request("https://api.example.test/ping")) }
                }
            }
        }
        await inspector.flush()
        #expect(try store.count() == 200)
        #expect(inspector.droppedCount == 0)
        #expect(Set(store.all.map(\.id)).count == 200)
        await inspector.shutdown()
    }

    @Test("after shutdown new exchanges are dropped and counted, and requests still succeed")
    func afterShutdown() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(store: store)
        let client = Fixture.client([.status(200)], observer: inspector)
        _ = try await client.execute(Fixture.request("https://api.example.test/a"))
        await inspector.shutdown()
        #expect(try store.count() == 1)

        let response = try await client.execute(Fixture.request("https://api.example.test/b"))
        #expect(response.head.status.code == 200)
        await inspector.flush()
        #expect(try store.count() == 1)
        #expect(inspector.droppedCount == 1)
    }

    @Test("what middleware note on an attempt (cache, breaker key, priority) is stored with it, in SQLite too")
    func attemptNotes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let inspector = NetworkTraceInspector(store: store)
        let client = Fixture.client(
            [.status(200)], middlewares: [RequestMetadataMiddleware(), NoteTaker(key: "cache", value: "miss")],
            observer: inspector)
        let response = try await client.execute(
            Fixture.request("https://api.example.test/ping"), metadata: RequestMetadata(priority: .high))
        await inspector.flush()
        let stored = try #require(try store.exchange(id: response.exchangeID))
        #expect(stored.attempts.first?.notes == ["priority": "high", "cache": "miss"])
    }
}

/// Writes one annotation for the next attempt, as the cache and breaker middleware do.
private struct NoteTaker: ClientMiddleware {
    let key: String, value: String

    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var context = context
        context.annotations.extra[key] = value
        return try await next(request, body, context)
    }
}
