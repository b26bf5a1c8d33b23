import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Modes over real cassette files (a Loupe store and a HAR file) in a temporary folder; the upstream is scripted.
@Suite("Cassette modes")
struct CassetteModeTests {
    static let formats = ["items.sqlite", "items.har"]

    @Test(arguments: formats) func onceRecordsWhenMissingThenOnlyReplays(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file(name)
        let upstream = CassetteFixture.upstream([.status(200, body: Data(#"{"page":1}"#.utf8))])

        let recording = try Cassette(path: path)
        #expect(recording.mode == .all, "a missing file records from scratch")
        let client = CassetteFixture.client(recording.transport(upstream: upstream))
        let live = try await CassetteFixture.send(client, "/items?page=1")
        #expect(CassetteFixture.text(live) == #"{"page":1}"#)
        #expect(upstream.requests.count == 1)
        #expect(FileManager.default.fileExists(atPath: path), "saved as it was recorded")

        let replaying = try Cassette(path: path)
        #expect(replaying.mode == .once)
        let offline = CassetteFixture.client(replaying.transport(upstream: upstream))
        let played = try await CassetteFixture.send(offline, "/items?page=1")
        #expect(played.status.code == 200)
        #expect(CassetteFixture.text(played) == #"{"page":1}"#)
        #expect(upstream.requests.count == 1, "nothing reached the network")
        let miss = await CassetteFixture.cassetteError { try await CassetteFixture.send(offline, "/items?page=2") }
        #expect(miss?.code == .noMatch)
        #expect(upstream.requests.count == 1)
        try replaying.assertAllPlayed()
    }

    @Test func identicalRequestsReplayInRecordedOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("flaky.har")
        try CassetteFixture.write([
            CassetteFixture.exchange("/flaky", status: 429, body: "slow down"),
            CassetteFixture.exchange("/flaky", status: 200, body: "ok"),
        ], to: path)

        let client = CassetteFixture.client(try Cassette(path: path, mode: .none).transport())
        #expect(try await CassetteFixture.send(client, "/flaky").status.code == 429)
        #expect(try await CassetteFixture.send(client, "/flaky").status.code == 200)
        let third = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, "/flaky") }
        #expect(third?.message == """
            no recorded interaction matches GET https://api.example.com/flaky
              #1 GET /flaky — method ✓ path ✓ query ✓ — already played (allowPlaybackRepeats is off)
              #2 GET /flaky — method ✓ path ✓ query ✓ — already played (allowPlaybackRepeats is off)
            """)

        let repeating = CassetteFixture.client(try Cassette(path: path, mode: .none, allowPlaybackRepeats: true).transport())
        let statuses = try await [1, 2, 3, 4].asyncMap { _ in try await CassetteFixture.send(repeating, "/flaky").status.code }
        #expect(statuses == [429, 200, 200, 200], "the last answer repeats once every one has been played")
    }

    @Test func aRetryingClientGetsThe429ThenThe200() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("retry.sqlite")
        let upstream = CassetteFixture.upstream([.status(429), .status(200, body: Data("ok".utf8))])
        let retry = RetryMiddleware(policy: RetryPolicy(backoff: .none))
        let recording = try Cassette(path: path, mode: .once)
        let live = Client(baseURL: CassetteFixture.base, transport: recording.transport(upstream: upstream), middlewares: [retry])
        #expect(try await CassetteFixture.send(live, "/flaky").status.code == 200)
        #expect(recording.interactions.map(\.status) == [429, 200])

        let replaying = try Cassette(path: path, mode: .none)
        let offline = Client(baseURL: CassetteFixture.base, transport: replaying.transport(), middlewares: [retry])
        let response = try await CassetteFixture.send(offline, "/flaky")
        #expect(response.status.code == 200)
        #expect(response.attempts.count == 2)
        try replaying.assertAllPlayed()
    }

    @Test func newEpisodesReplaysKnownRequestsAndRecordsNewOnes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("episodes.har")
        try CassetteFixture.write([CassetteFixture.exchange("/items?page=1", body: "recorded")], to: path)
        let upstream = CassetteFixture.upstream([.status(200, body: Data("live".utf8))])

        let cassette = try Cassette(path: path, mode: .newEpisodes)
        let client = CassetteFixture.client(cassette.transport(upstream: upstream))
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items?page=1")) == "recorded")
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items?page=2")) == "live")
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items?page=1")) == "live",
                "the recorded one was played: an identical request is a new episode")
        #expect(upstream.requests.count == 2)

        let saved = try Cassette(path: path, mode: .none)
        #expect(saved.interactions.map(\.url) == [
            "https://api.example.com/items?page=1", "https://api.example.com/items?page=2",
            "https://api.example.com/items?page=1",
        ])
    }

    @Test func allRecordsEverythingAgainAndReplacesTheFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("all.sqlite")
        try CassetteFixture.write([
            CassetteFixture.exchange("/old", body: "old"), CassetteFixture.exchange("/items", body: "old"),
        ], to: path)
        let upstream = CassetteFixture.upstream([.status(201, body: Data("new".utf8))])

        let cassette = try Cassette(path: path, mode: .all)
        #expect(cassette.interactions.isEmpty)
        let client = CassetteFixture.client(cassette.transport(upstream: upstream))
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items")) == "new")
        let saved = try Cassette(path: path, mode: .none)
        #expect(saved.interactions.map(\.url) == ["https://api.example.com/items"])
        #expect(saved.interactions.map(\.status) == [201])
    }

    @Test func noneNeedsTheFileAndNeverSends() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: CassetteError(.notFound, path: folder.file("missing.har"), message: """
            cassette \(folder.file("missing.har")) does not exist, and mode .none never records
            """)) { try Cassette(path: folder.file("missing.har"), mode: .none) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing.har")))

        let path = folder.file("one.har")
        try CassetteFixture.write([CassetteFixture.exchange("/items")], to: path)
        let upstream = CassetteFixture.upstream([.status(200)])
        let client = CassetteFixture.client(try Cassette(path: path, mode: .none).transport(upstream: upstream))
        let error = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, "/other") }
        #expect(error?.code == .noMatch)
        #expect(upstream.requests.isEmpty)
    }

    @Test func passthroughNeitherReplaysNorRecords() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("pass.har")
        try CassetteFixture.write([CassetteFixture.exchange("/items", body: "recorded")], to: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let upstream = CassetteFixture.upstream([.status(200, body: Data("live".utf8))])

        let cassette = try Cassette(path: path, mode: .passthrough)
        let client = CassetteFixture.client(cassette.transport(upstream: upstream))
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items")) == "live")
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/new")) == "live")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        try cassette.assertAllPlayed()
    }

    @Test func recordingWithoutAnUpstreamFailsClearly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("new.har")
        let client = CassetteFixture.client(try Cassette(path: path).transport())
        let error = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, "/items?api_key=k-123456") }
        #expect(error?.code == .noUpstream)
        #expect(error?.message == """
            cassette \(path) (mode .all) must send GET https://api.example.com/items?api_key=%5BREDACTED%5D but has no \
            upstream transport: pass one to transport(upstream:)
            """)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func unplayedInteractionsAreListed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("unplayed.sqlite")
        try CassetteFixture.write([
            CassetteFixture.exchange("/a"), CassetteFixture.exchange("/b?x=1"), CassetteFixture.exchange("POST", "/c"),
        ], to: path)
        let cassette = try Cassette(path: path, mode: .none)
        try await CassetteFixture.send(CassetteFixture.client(cassette.transport()), "/a")
        #expect(cassette.unplayedInteractions.map(\.method) == ["GET", "POST"])
        #expect(throws: CassetteError(.unplayedInteractions, path: path, message: """
            2 recorded interactions were never played from \(path)
              #2 GET /b?x=1
              #3 POST /c
            """)) { try cassette.assertAllPlayed() }
    }

    @Test func aResponseRecordedCutShortIsNotPlayed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("capped.sqlite")
        var exchange = CassetteFixture.exchange("/big", body: "abc")
        exchange.responseBody = TraceBody(data: Data("abc".utf8), size: 10, isTruncated: true)
        try CassetteFixture.write([exchange], to: path)
        let client = CassetteFixture.client(try Cassette(path: path, mode: .none).transport())
        let error = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, "/big") }
        #expect(error?.message == """
            interaction #1 of \(path) holds only the first 3 of 10 bytes of its response body; it cannot be replayed faithfully
            """)
    }

    @Test func aStoreTheRecorderWroteIsACassette() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path)
        let inspector = NetworkTraceInspector(store: store)
        let recorded = Client(baseURL: CassetteFixture.base, transport: CassetteFixture.upstream([
            .status(200, headers: [.contentType: "application/json"], body: Data(#"{"id":7}"#.utf8)),
        ]), observer: inspector)
        try await CassetteFixture.send(recorded, "/users/7")
        await inspector.shutdown()
        try store.close()

        let client = CassetteFixture.client(try Cassette(path: path, mode: .none).transport())
        let response = try await CassetteFixture.send(client, "/users/7")
        #expect(CassetteFixture.text(response) == #"{"id":7}"#)
        #expect(response.head.headerFields[.contentType] == "application/json")
    }
}

extension Array {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
