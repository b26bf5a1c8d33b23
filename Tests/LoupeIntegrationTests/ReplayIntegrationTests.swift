import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import LoupeQuery
import LoupeTrace
import LoupeFormats
import LoupeFilter
import LoupeReplay
import NIOCore
import Synchronization
import Testing

/// Replays against real loopback servers: the replay API in-process, and the `loupe replay` binary.
@Suite(.serialized) struct ReplayIntegrationTests {
    /// A catalogue whose fourth price can be changed, and a body field that changes on every call.
    final class Catalogue: Sendable {
        let price = Mutex(10)
        let calls = Mutex(0)
    }

    static func router(_ catalogue: Catalogue) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/items") { _, _ -> Response in
            catalogue.calls.withLock { $0 += 1 }
            let price = catalogue.price.withLock { $0 }
            let items = (1...5).map { #"{"id": \#($0), "price": \#($0 == 4 ? price : 10)}"# }.joined(separator: ", ")
            return json(#"{"items": [\#(items)], "meta": {"page": 1}}"#)
        }
        router.get("/volatile") { _, _ -> Response in
            let call = catalogue.calls.withLock { $0 += 1; return $0 }
            return json(#"{"requestId": "\#(UUID().uuidString)", "call": \#(call), "value": 42}"#)
        }
        return router
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", HTTPField.Name("X-Request-Id")!: UUID().uuidString],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Records `GET path` from `server` into the store at `path` and returns the recorded exchange.
    static func record(_ path: String, from server: URL, into storePath: String) async throws -> TraceExchange {
        let store = try SQLiteTraceStore(path: storePath)
        let inspector = NetworkTraceInspector(store: store)
        let client = Client(baseURL: server, transport: AsyncHTTPClientTransport(), observer: inspector)
        let response = try await client.execute(HTTPRequest(method: .get, url: server.appendingPathComponent(path)))
        await inspector.shutdown()
        return try #require(try store.exchange(id: response.exchangeID))
    }

    @Test func replaysAreScheduledRecordedAndComparedWithNoiseLearnedFromRepeats() async throws {
        let catalogue = Catalogue()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(catalogue)) { server in
                let path = folder.appendingPathComponent("traces.sqlite").path
                let items = try await Self.record("items", from: server, into: path)
                let volatile = try await Self.record("volatile", from: server, into: path)
                catalogue.price.withLock { $0 = 12 }

                let store = try SQLiteTraceStore(path: path)
                let inspector = NetworkTraceInspector(store: store)
                let replayer = TraceReplayer(client: Client(baseURL: server, transport: AsyncHTTPClientTransport(), observer: inspector))
                // Three replays of each, and two noise runs of the volatile one.
                let jobs: [(TraceExchange, Bool)] = Array(repeating: (items, false), count: 3) + Array(repeating: (volatile, false), count: 3)
                    + Array(repeating: (volatile, true), count: 2)
                let clock = ContinuousClock()
                let finished = await ReplayScheduler(concurrency: 3, clock: clock).run(count: jobs.count) { index in
                    await replayer.outcome(of: jobs[index].0, baseURL: nil, headers: [:], timeout: nil, isNoiseRun: jobs[index].1, clock: clock)
                }
                await inspector.flush()
                let outcomes = finished.map(\.output)
                #expect(outcomes.allSatisfy { $0.status == 200 && $0.replayID != nil })
                #expect(try store.exchanges(matching: TraceFilter.parse("~replay"), limit: 100).count == 8)

                let results = ReplayComparison.compare(
                    originals: [items.id: items, volatile.id: volatile], outcomes: outcomes, ignore: [],
                    lookup: { try store.exchange(id: $0) })
                #expect(results.count == 6)
                for result in results where result.outcome.originalID == items.id {
                    #expect(result.diff?.differences.map(\.description) == ["$.items[3].price: 10 → 12"])
                }
                for result in results where result.outcome.originalID == volatile.id {
                    #expect(result.diff?.isSame == true)
                    #expect(Set(result.diff?.noise.map(\.location.description) ?? []) == ["$.requestId", "$.call"])
                }
                await inspector.shutdown()
            }
        }
    }

    /// Runs the `loupe` binary with `arguments`, stdin closed; returns its exit code and output.
    static func loupe(_ arguments: [String], in folder: URL) async throws -> (code: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = try #require(CrossProcessTests.loupeBinary, "build the loupe executable first (swift build)")
        process.arguments = arguments
        let out = folder.appendingPathComponent("out-\(UUID().uuidString)")
        let err = folder.appendingPathComponent("err-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: out.path, contents: nil))
        #expect(FileManager.default.createFile(atPath: err.path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let code: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (code, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    @Test func theLoupeBinaryRepeatsDiffsIgnoresAndRetargets() async throws {
        let (first, second) = (Catalogue(), Catalogue())
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(first)) { server in
                try await withLocalServer(Self.router(second)) { other in
                    let path = folder.appendingPathComponent("traces.sqlite").path
                    let original = try await Self.record("items", from: server, into: path)

                    let repeated = try await Self.loupe(["replay", path, "--id", "1", "--times", "6", "--concurrency", "3"], in: folder)
                    #expect(repeated.code == 0, "\(repeated.err)")
                    #expect(repeated.out.contains("Statuses: 200 ×6"))
                    let store = try SQLiteTraceStore(path: path, readOnly: true)
                    let replays = try store.exchanges(matching: TraceFilter.parse("~replay"), limit: 100)
                    #expect(replays.count == 6 && replays.allSatisfy { $0.replayOf == original.id })
                    #expect(first.calls.withLock { $0 } == 7)

                    first.price.withLock { $0 = 12 }
                    let changed = try await Self.loupe(["replay", path, "--id", "1", "--diff"], in: folder)
                    #expect(changed.code == 1)
                    #expect(changed.out.contains("\n    $.items[3].price: 10 → 12\n"), "\(changed.out)")
                    let ignored = try await Self.loupe(["replay", path, "--id", "1", "--diff", "--ignore", "$.items[*].price"], in: folder)
                    #expect(ignored.code == 0, "\(ignored.out)")

                    let retargeted = try await Self.loupe(["replay", path, "--id", "1", "--diff", "--base-url", other.absoluteString], in: folder)
                    #expect(retargeted.code == 0, "\(retargeted.out)")
                    #expect(second.calls.withLock { $0 } == 1)
                    #expect(first.calls.withLock { $0 } == 9)
                    let last = try #require(try store.recent(limit: 1).first)
                    #expect(last.url == other.appendingPathComponent("items").absoluteString && last.replayOf == original.id)
                }
            }
        }
    }
}
