import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeQuery
import LoupeServe
import LoupeTrace
import Synchronization
import Testing

/// The server on 127.0.0.1, called through Loupe's own client (a Swift client of the kind a service's tests use).
@Suite struct ServeServerTests {
    static func recorded() throws -> InMemoryTraceStore {
        let store = InMemoryTraceStore()
        try store.write([
            Recordings.exchange("GET", "/status", status: 503, body: #"{"state":"down"}"#, offset: 0),
            Recordings.exchange("GET", "/status", status: 200, body: #"{"state":"up"}"#, offset: 1),
            Recordings.exchange("POST", "/orders", status: 201, body: #"{"id":7}"#, requestBody: #"{"item":"lens","requestId":"r1"}"#,
                                responseHeaders: [TraceHeader(name: "Location", value: "/orders/7"), TraceHeader(name: "Date", value: "Tue, 14 Nov 2023 22:13:20 GMT")],
                                offset: 2),
        ])
        return store
    }

    static func withServer(_ options: ServeOptions = ServeOptions(), store: (any TraceStore)? = nil,
                           stopped: (ServeServer) -> Void = { _ in },
                           _ body: (Client, URL, Lines) async throws -> Void) async throws {
        let source: any TraceStore = try store ?? Self.recorded()
        let library = try ServeLibrary(store: source)
        let lines = Lines()
        let server = try await ServeServer.start(library: library, options: options) { line in lines.append(line) }
        let base = URL(string: "http://127.0.0.1:\(server.port)")!
        let transport = AsyncHTTPClientTransport()
        let client = Client(baseURL: base, transport: transport)
        do {
            try await body(client, base, lines)
        } catch {
            try? await transport.shutdown()
            await server.stop()
            throw error
        }
        try? await transport.shutdown()
        await server.stop()
        stopped(server)
    }

    static func get(_ client: Client, _ base: URL, _ path: String) async throws -> ClientResponse<Data> {
        try await client.execute(HTTPRequest(method: .get, url: URL(string: path, relativeTo: base)!.absoluteURL))
    }

    @Test func a503ThenA200AreServedInOrderThenThe200Again() async throws {
        try await Self.withServer { client, base, lines in
            var statuses: [Int] = []
            var bodies: [String] = []
            for _ in 0..<3 {
                let response = try await Self.get(client, base, "/status")
                statuses.append(response.head.status.code)
                bodies.append(String(decoding: response.body, as: UTF8.self))
            }
            #expect(statuses == [503, 200, 200])
            #expect(bodies == [#"{"state":"down"}"#, #"{"state":"up"}"#, #"{"state":"up"}"#])
            #expect(lines.all == ["GET /status → 503 #1", "GET /status → 200 #2", "GET /status → 200 #2"])
            let reset = try await client.execute(HTTPRequest(method: .post, url: URL(string: "/__loupe/reset", relativeTo: base)!.absoluteURL))
            #expect(reset.head.status.code == 200)
            #expect(try await Self.get(client, base, "/status").head.status.code == 503)
        }
    }

    @Test func headersAreFaithfulWithTodaysDateAndTheRightLength() async throws {
        try await Self.withServer { client, base, _ in
            let request = HTTPRequest(method: .post, url: URL(string: "/orders", relativeTo: base)!.absoluteURL,
                                      headerFields: [.contentType: "application/json"])
            let response = try await client.execute(request, body: .data(Data(#"{"requestId":"r1", "item":"lens"}"#.utf8)))
            #expect(response.head.status.code == 201)
            #expect(response.head.headerFields[.location] == "/orders/7")
            #expect(response.head.headerFields[.contentLength] == "8")
            let date = try #require(response.head.headerFields[.date])
            #expect(!date.contains("2023"))
            #expect(response.body == Data(#"{"id":7}"#.utf8))
        }
    }

    @Test func aMissIsA404NamingTheClosestRecordingAndIsRecordedAsServed() async throws {
        let destination = InMemoryTraceStore()
        try await Self.withServer(ServeOptions(store: destination)) { client, base, lines in
            let request = HTTPRequest(method: .post, url: URL(string: "/orders", relativeTo: base)!.absoluteURL)
            let response = try await client.execute(request, body: .data(Data(#"{"item":"tripod","requestId":"r1"}"#.utf8)))
            #expect(response.head.status.code == 404)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.contains(#"closest: #3 POST /orders — method ✓ path ✓ query ✓ body ✗ ($.item: "lens" vs "tripod")"#))
            #expect(lines.all.last == #"POST /orders → 404 miss: closest #3 (body ✗ $.item: "lens" vs "tripod")"#)
        }
        // Recorded by the writer in the background; stopping the server writes what it had queued.
        let stored = try destination.exchanges(matching: TraceFilter.served, limit: 10)
        #expect(stored.count == 1)
        #expect(stored.first?.status == 404)
        #expect(stored.first?.events.first?.attributes["miss"]?.contains("closest #3") == true)
    }

    @Test func aStalledStoreNeverHoldsAnAnswerBackAndWhatItCouldNotTakeIsCounted() async throws {
        let stalled = StalledStore()
        var options = ServeOptions(store: stalled)
        options.recordingQueue = 1
        var dropped = -1
        try await Self.withServer(options, stopped: { dropped = $0.droppedRecordings }) { client, base, _ in
            // The store's writes block until released, as a disk that stopped would; every answer still comes.
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    for _ in 0..<3 { _ = try await Self.get(client, base, "/status") }
                    return 3
                }
                // A deadline, not a wait: the answers normally come at once; this ends the test if they never do.
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return 0
                }
                let first = try await group.next() ?? 0
                group.cancelAll()
                return first
            }
            stalled.release()
            #expect(answered == 3, "the answers waited for the store")
        }
        // A queue of one: the first is written (once released), at most one waits, the rest are dropped and counted.
        #expect(dropped >= 1)
        #expect(stalled.written + dropped == 3)
    }
}

/// A store whose writes block until ``release()``: a disk that stopped.
final class StalledStore: TraceStoreWriting {
    private let gate = DispatchSemaphore(value: 0)
    private let count = Mutex(0)
    private let released = Mutex(false)

    func write(_ exchanges: [TraceExchange]) throws {
        if !released.withLock({ $0 }) { gate.wait() }
        count.withLock { $0 += exchanges.count }
    }

    func release() {
        released.withLock { $0 = true }
        gate.signal()
    }

    var written: Int { count.withLock { $0 } }
}

/// The lines a server printed, in order.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
