import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import LoupeTesting
import LoupeTrace
import NIOCore
import Synchronization
import Testing

/// Cassettes recorded from real loopback servers (Hummingbird routes made for the test), then replayed with the
/// server gone.
@Suite struct CassetteIntegrationTests {
    /// Counts the requests that reached the server, by path.
    final class Hits: Sendable {
        let counts = Mutex([String: Int]())
        func add(_ path: String) -> Int { counts.withLock { $0[path, default: 0] += 1; return $0[path]! } }
        subscript(path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    }

    static let token = "it-token-8c1f0e6b"
    static let issued = "issued-3d9a7b2c55"

    /// `/items?page=N`, `/login` (needs the bearer token, answers a new one) and `/flaky` (429 once, then 200).
    static func router(_ hits: Hits) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/items") { request, _ -> Response in
            _ = hits.add("/items")
            let page = request.uri.queryParameters.get("page") ?? "1"
            return json(#"{"page":\#(page),"items":[\#(page)1,\#(page)2]}"#)
        }
        router.post("/login") { request, _ -> Response in
            _ = hits.add("/login")
            guard request.headers[.authorization] == "Bearer \(token)" else { return Response(status: .unauthorized) }
            return json(#"{"access_token":"\#(issued)","echo":"\#(token)"}"#)
        }
        router.get("/flaky") { _, _ -> Response in
            hits.add("/flaky") == 1
                ? Response(status: .tooManyRequests, headers: [.retryAfter: "0"])
                : json(#"{"ok":true}"#)
        }
        return router
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The calls a test makes, with what it expects back: the same whether recorded or replayed.
    static func exercise(_ client: Client, token: String, issued: String) async throws {
        for page in [1, 2] {
            let url = URL(string: "\(client.baseURL.absoluteString)/items?page=\(page)")!
            let response = try await client.execute(HTTPRequest(method: .get, url: url))
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"page":\#(page),"items":[\#(page)1,\#(page)2]}"#)
        }
        let login = try await client.execute(
            HTTPRequest(method: .post, url: client.baseURL.appendingPathComponent("login"), headerFields: [.authorization: "Bearer \(token)"]))
        #expect(login.status.code == 200)
        #expect(String(decoding: login.body, as: UTF8.self) == #"{"access_token":"\#(issued)","echo":"\#(token)"}"#)
        let flaky = try await client.execute(HTTPRequest(method: .get, url: client.baseURL.appendingPathComponent("flaky")))
        #expect(flaky.status.code == 200)
        #expect(flaky.attempts.map(\.status) == [429, 200], "the retry saw the 429, then the 200")
    }

    static let retry = RetryMiddleware(policy: RetryPolicy(backoff: .none))

    @Test(arguments: ["api.har", "api.sqlite"])
    func recordsFromARealServerThenReplaysWithoutIt(_ name: String) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent(name).path
            let hits = Hits()
            try await withLocalServer(Self.router(hits)) { server in
                let cassette = try Cassette(path: path, secrets: ["TOKEN": Self.token, "ISSUED": Self.issued])
                let client = Client(baseURL: server, transport: cassette.transport(upstream: AsyncHTTPClientTransport()),
                                    middlewares: [Self.retry])
                try await Self.exercise(client, token: Self.token, issued: Self.issued)
                #expect(cassette.interactions.count == 5)
            }
            #expect(hits["/items"] == 2 && hits["/login"] == 1 && hits["/flaky"] == 2)
            let saved = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(saved.range(of: Data(Self.token.utf8)) == nil && saved.range(of: Data(Self.issued.utf8)) == nil)

            // The server is gone (its port closed): every answer comes from the file, with dummy secrets put back.
            let replay = try Cassette(path: path, mode: .none, matching: [.method, .path, .query, .headers(["Authorization"])],
                                      secrets: ["TOKEN": "dummy-token", "ISSUED": "dummy-issued"])
            let offline = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: replay.transport(),
                                 middlewares: [Self.retry])
            try await Self.exercise(offline, token: "dummy-token", issued: "dummy-issued")
            try replay.assertAllPlayed()
            #expect(hits["/items"] == 2 && hits["/flaky"] == 2)
        }
    }

    @Test func newEpisodesOnlyReachesTheServerForNewRequests() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("episodes.har").path
            let hits = Hits()
            try await withLocalServer(Self.router(hits)) { server in
                let first = try Cassette(path: path)
                let recorder = Client(baseURL: server, transport: first.transport(upstream: AsyncHTTPClientTransport()))
                _ = try await recorder.execute(HTTPRequest(method: .get, url: URL(string: "\(server.absoluteString)/items?page=1")!))
                #expect(hits["/items"] == 1)

                let episodes = try Cassette(path: path, mode: .newEpisodes)
                let client = Client(baseURL: server, transport: episodes.transport(upstream: AsyncHTTPClientTransport()))
                for page in [1, 3] {
                    let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "\(server.absoluteString)/items?page=\(page)")!))
                    #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"page":\#(page),"#))
                }
                #expect(hits["/items"] == 2, "page 1 was replayed, page 3 recorded")
            }
            let saved = try Cassette(path: path, mode: .none)
            #expect(saved.interactions.map { CassetteRequest($0).pathAndQuery } == ["/items?page=1", "/items?page=3"])
        }
    }

    static let traitFolder = NSTemporaryDirectory() + "loupe-cassette-integration-\(ProcessInfo.processInfo.processIdentifier)"

    /// The trait in mode `.all`: records on every run, so the test body always talks to its own server.
    @Test(.cassette("trait", mode: .all, secrets: ["TOKEN": token], directory: traitFolder))
    func theTraitRecordsThroughTheCurrentCassette() async throws {
        defer { try? FileManager.default.removeItem(atPath: Self.traitFolder) }
        let cassette = try #require(Cassette.current)
        try await withLocalServer(Self.router(Hits())) { server in
            let client = Client(baseURL: server, transport: cassette.transport(upstream: AsyncHTTPClientTransport()))
            let response = try await client.execute(
                HTTPRequest(method: .post, url: server.appendingPathComponent("login"), headerFields: [.authorization: "Bearer \(Self.token)"]))
            #expect(response.status.code == 200)
        }
        let stored = try #require(try Cassette(path: cassette.path, mode: .none).interactions.first)
        #expect(stored.requestHeaders.first { $0.name == "Authorization" }?.value == "[REDACTED]",
                "opened without the secret, the placeholder is redacted like any value")
        let text = try String(contentsOfFile: cassette.path, encoding: .utf8)
        #expect(text.contains("Bearer <TOKEN>") && !text.contains(Self.token))
    }
}

extension CassetteIntegrationTests {
    /// The named pair: `RecordingTransport` writes the file from a real server, `ReplayTransport` answers from it
    /// with the server gone, and a request it never recorded is explained, not sent.
    @Test func recordingTransportThenReplayTransport() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("pair.har").path
            let hits = Hits()
            try await withLocalServer(Self.router(hits)) { server in
                let recorder = try RecordingTransport(path: path, upstream: AsyncHTTPClientTransport())
                let client = Client(baseURL: server, transport: recorder)
                let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "\(server.absoluteString)/items?page=2")!))
                #expect(response.status.code == 200)
            }
            #expect(hits["/items"] == 1)
            let replay = try ReplayTransport(path: path)
            let offline = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: replay)
            let again = try await offline.execute(HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/items?page=2")!))
            #expect(String(decoding: again.body, as: UTF8.self) == #"{"page":2,"items":[21,22]}"#)
            let miss = await #expect(throws: ClientError.self) {
                _ = try await offline.execute(HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:9/items?page=3")!))
            }
            #expect("\(String(describing: miss))".contains("query ✗ (page=2 vs page=3)"))
            #expect(throws: CassetteError.self) { _ = try RecordingTransport(cassette: replay.cassette, upstream: AsyncHTTPClientTransport()) }
        }
    }
}
