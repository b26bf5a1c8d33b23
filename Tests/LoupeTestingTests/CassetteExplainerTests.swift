import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The no-match error, asserted whole.
@Suite("Cassette no-match explainer")
struct CassetteExplainerTests {
    private func cassette(_ exchanges: [TraceExchange], matching: [CassetteMatcher] = .default, in folder: TemporaryFolder)
        throws -> Cassette {
        let path = folder.file("explain.har")
        try CassetteFixture.write(exchanges, to: path)
        return try Cassette(path: path, mode: .none, matching: matching)
    }

    @Test func listsTheClosestRecordingsWithEachMatchersVerdict() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cassette = try cassette([
            CassetteFixture.exchange("/users"),
            CassetteFixture.exchange("/items?page=2"),
            CassetteFixture.exchange("POST", "/items?page=3"),
            CassetteFixture.exchange("DELETE", "/items/9"),
        ], in: folder)
        let client = CassetteFixture.client(cassette.transport())
        let error = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, "/items?page=3") }
        #expect(error?.code == .noMatch)
        #expect(error?.description == """
            no recorded interaction matches GET https://api.example.com/items?page=3
              #2 GET /items?page=2 — method ✓ path ✓ query ✗ (page=2 vs page=3)
              #3 POST /items?page=3 — method ✗ (POST vs GET) path ✓ query ✓
              #1 GET /users — method ✓ path ✗ (/users vs /items) query ✗ (none vs page=3)
            """)
    }

    @Test func bodyAndHeaderVerdictsSayWhatDiffers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cassette = try cassette([
            CassetteFixture.exchange("POST", "/orders", requestBody: #"{"item":"pen","qty":2}"#,
                                     requestHeaders: [TraceHeader(name: "X-Api-Version", value: "1")]),
        ], matching: [.method, .path, .headers(["X-Api-Version"]), .body], in: folder)
        let client = CassetteFixture.client(cassette.transport())
        let error = await CassetteFixture.cassetteError {
            try await CassetteFixture.send(client, .post, "/orders", headers: [HTTPField.Name("X-Api-Version")!: "2"],
                                           body: #"{"qty":3,"item":"pen"}"#)
        }
        #expect(error?.description == """
            no recorded interaction matches POST https://api.example.com/orders
              #1 POST /orders — method ✓ path ✓ headers ✗ (X-Api-Version: 1 vs 2) body ✗ ($.qty: 2 vs 3)
            """)
    }

    @Test func anEmptyCassetteSaysSo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = CassetteFixture.client(try cassette([], in: folder).transport())
        let error = await CassetteFixture.cassetteError { try await CassetteFixture.send(client, .delete, "/items/1") }
        #expect(error?.description == """
            no recorded interaction matches DELETE https://api.example.com/items/1
              (the cassette has no recorded interactions)
            """)
    }

    @Test func secretsNeverReachTheMessage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("secret.har")
        try CassetteFixture.write([CassetteFixture.exchange("/items?page=1")], to: path)
        let cassette = try Cassette(path: path, mode: .none, secrets: ["TOKEN": "tok-live-123456"])
        let client = CassetteFixture.client(cassette.transport())
        let error = await CassetteFixture.cassetteError {
            try await CassetteFixture.send(client, "/items?page=1&session=tok-live-123456&api_key=other-key-99")
        }
        #expect(error?.description == """
            no recorded interaction matches GET https://api.example.com/items?page=1&session=%3CTOKEN%3E&api_key=%5BREDACTED%5D
              #1 GET /items?page=1 — method ✓ path ✓ query ✗ (none vs session=<TOKEN>&api_key=[REDACTED])
            """)
    }
}
