import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
@testable import LoupeRules
import LoupeFilter
import LoupeTesting
import LoupeTrace
import Testing

/// A rule's rewrite or an edit at a breakpoint changes the request below the client's attempt record: the store
/// keeps what went on the wire, with what the app asked for beside it, and the event says exactly what changed
/// (issue 43, item 7). Recorded through the real recorder into a real SQLite file.
@Suite struct RecordedAsSentTests {
    struct Recording {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-sent-\(UUID()).sqlite").path
        let store: SQLiteTraceStore
        let inspector: NetworkTraceInspector
        let book = RuleBook(maxHold: .seconds(60), random: { 0 })
        let server = ScriptedTransport([.status(201), .status(201)])
        let client: Client

        init(_ rules: [Rule]) throws {
            store = try SQLiteTraceStore(path: path, bounds: nil)
            inspector = NetworkTraceInspector(store: store)
            for rule in rules { book.put(rule, origin: .code) }
            client = Client(baseURL: URL(string: "http://api.test")!, transport: RulesTransport(wrapping: server, book: book),
                            observer: inspector)
        }

        /// Flushes, closes the writer and opens the file again read-only, as a viewer does.
        func stored() async throws -> [TraceExchange] {
            await inspector.shutdown()
            try store.close()
            let reader = try SQLiteTraceStore(path: path, readOnly: true)
            defer { try? reader.close() }
            return try reader.exchanges(matching: nil, limit: 10)
        }

        func remove() {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    @Test func aRewriteIsStoredAsSentWithTheAppsRequestBesideIt() async throws {
        let rewrite = RuleRewrite(setHeaders: [TraceHeader(name: "X-Rehearsal", value: "yes")], removeHeaders: ["x-app-only"],
                                  baseURL: URL(string: "http://127.0.0.1:9000/mapped")!)
        let recording = try Recording([try Rule(name: "staging", match: "~u users", action: .rewrite(rewrite))])
        defer { recording.remove() }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "api.test", path: "/users",
                                  headerFields: [HTTPField.Name("x-app-only")!: "1"])
        let response = try await recording.client.execute(request, options: RequestOptions(operation: "listUsers"))
        #expect(response.attempts.first?.wire?.head.path == "/mapped/users", "the caller's record says what was sent")
        // Nothing rewritten: nothing more is kept.
        _ = try await recording.client.execute(HTTPRequest(method: .get, scheme: "http", authority: "api.test", path: "/orders"))

        let stored = try await recording.stored()
        let sent = try #require(stored.first { $0.operation == "listUsers" })
        #expect(sent.url == "http://127.0.0.1:9000/mapped/users")
        #expect(sent.requestHeaders.contains(TraceHeader(name: "X-Rehearsal", value: "yes")))
        #expect(!sent.requestHeaders.contains { $0.name == "x-app-only" })
        let asked = try #require(sent.beforeRule)
        #expect(asked.method == "GET" && asked.url == "http://api.test/users")
        #expect(asked.headers.contains(TraceHeader(name: "x-app-only", value: "1")))
        #expect(!asked.headers.contains { $0.name == "X-Rehearsal" })
        #expect(asked.body == nil)
        let event = try #require(sent.events.first { $0.kind == .rule })
        #expect(event.message == "rule staging: rewrote the request: URL GET http://api.test/users → GET "
            + "http://127.0.0.1:9000/mapped/users; set X-Rehearsal: yes; removed x-app-only")
        #expect(event.attributes["removed"] == "x-app-only" && event.attributes["set"] == "X-Rehearsal: yes")
        #expect(stored.first { $0.operation != "listUsers" }?.beforeRule == nil)

        // Filters see the request that was sent.
        let reader = try SQLiteTraceStore(path: recording.path, readOnly: true)
        defer { try? reader.close() }
        #expect(try reader.summaries(matching: TraceFilter.parse("~u mapped"), limit: 10).map(\.operation) == ["listUsers"])
        #expect(try reader.summaries(matching: TraceFilter.parse("~d 127.0.0.1"), limit: 10).count == 1)
        #expect(try reader.summaries(matching: TraceFilter.parse("~h x-rehearsal"), limit: 10).count == 1)
        #expect(try reader.summaries(matching: TraceFilter.parse("~h x-app-only"), limit: 10).isEmpty)
    }

    @Test func anEditedHeldRequestIsStoredAsSentWithTheBodyTheAppGave() async throws {
        let recording = try Recording([try Rule(name: "hold orders", match: "~op createOrder", action: .breakpoint(RuleBreakpoint()))])
        defer { recording.remove() }
        let post = Task {
            try await recording.client.execute(
                HTTPRequest(method: .post, scheme: "http", authority: "api.test", path: "/orders"),
                body: .data(Data(#"{"quantity":1}"#.utf8)), options: RequestOptions(operation: "createOrder"))
        }
        let held = try await Self.firstHeld(recording.book)
        #expect(recording.book.decide(held: held.id, .edit(HoldEdit(body: Data(#"{"quantity":42}"#.utf8)))))
        _ = try await post.value
        #expect(recording.server.requests.count == 1)

        let stored = try #require(try await recording.stored().first)
        #expect(stored.requestBody?.data == Data(#"{"quantity":42}"#.utf8), "the body that went on the wire")
        #expect(stored.beforeRule?.body?.data == Data(#"{"quantity":1}"#.utf8), "the body the app gave, beside it")
        #expect(stored.beforeRule?.url == "http://api.test/orders" && stored.url == "http://api.test/orders")
        let event = try #require(stored.events.first { $0.kind == .rule })
        #expect(event.message.hasSuffix("edited (body 14 B → 15 B) and continued"), "\(event.message)")
        #expect(event.attributes["body"] == "14 B → 15 B" && event.attributes["edited"] == "body")
    }

    @Test func anEditThatChangesNothingKeepsNothingMore() async throws {
        let recording = try Recording([try Rule(name: "hold", match: "~op createOrder", action: .breakpoint(RuleBreakpoint()))])
        defer { recording.remove() }
        let post = Task {
            try await recording.client.execute(
                HTTPRequest(method: .post, scheme: "http", authority: "api.test", path: "/orders"),
                body: .data(Data(#"{"quantity":1}"#.utf8)), options: RequestOptions(operation: "createOrder"))
        }
        let held = try await Self.firstHeld(recording.book)
        #expect(recording.book.decide(held: held.id, .edit(HoldEdit(body: Data(#"{"quantity":1}"#.utf8)))))
        #expect(try await post.value.attempts.first?.wire == nil)
        let stored = try #require(try await recording.stored().first)
        #expect(stored.beforeRule == nil)
        #expect(stored.events.first { $0.kind == .rule }?.message.contains("edited (no change)") == true)
    }

    static func firstHeld(_ book: RuleBook) async throws -> HeldRequest {
        for _ in 0..<100_000 {
            if let held = book.held.first { return held }
            await Task.yield()
        }
        throw CancellationError()
    }
}
