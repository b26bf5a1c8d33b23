import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Secrets saved as placeholders and put back on playback; everything else secret redacted by the policy.
@Suite("Cassette secrets")
struct CassetteSecretsTests {
    static let token = "tok-live-5f2a9c81"
    static let apiKey = "key-live-77d10e"

    /// Records one login exchange full of secrets and returns the cassette file's path.
    private func recordLogin(in folder: TemporaryFolder, name: String) async throws -> String {
        let path = folder.file(name)
        let response = #"{"access_token":"\#(Self.token)","note":"your token is \#(Self.token)","password":"pre-\#(Self.token)","refresh_token":"rt-secret-123456"}"#
        let upstream = CassetteFixture.upstream([.status(
            200, headers: [.contentType: "application/json", .setCookie: "sid=cookie-secret-42; Path=/",
                           HTTPField.Name("X-Echo")!: "Bearer \(Self.token)"],
            body: Data(response.utf8))])
        let cassette = try Cassette(path: path, secrets: ["TOKEN": Self.token, "API_KEY": Self.apiKey])
        let client = CassetteFixture.client(cassette.transport(upstream: upstream))
        let live = try await CassetteFixture.send(
            client, .post, "/login?api_key=\(Self.apiKey)&user=ann",
            headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
            body: #"{"user":"ann","token":"\#(Self.token)"}"#)
        #expect(CassetteFixture.text(live) == response, "recording never changes what the client receives")
        return path
    }

    @Test(arguments: ["login.har", "login.sqlite"]) func noSecretReachesTheFile(_ name: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await recordLogin(in: folder, name: name)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for companion in ["-wal", "-shm"] {
            bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + companion))) ?? Data()
        }
        for secret in [Self.token, Self.apiKey, "rt-secret-123456", "cookie-secret-42"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret.prefix(6))… was saved")
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func placeholdersAreStoredWhereTheValuesWere() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await recordLogin(in: folder, name: "login.har")
        let stored = try #require(try Cassette(path: path, mode: .none, secrets: ["TOKEN": "x-dummy", "API_KEY": "y-dummy"])
            .interactions.first)
        #expect(stored.url == "https://api.example.com/login?api_key=%3CAPI_KEY%3E&user=ann")
        #expect(stored.requestHeaders.first { $0.name == "Authorization" }?.value == "Bearer <TOKEN>")
        #expect(String(decoding: stored.requestBody?.data ?? Data(), as: UTF8.self) == #"{"user":"ann","token":"<TOKEN>"}"#)
        #expect(String(decoding: stored.responseBody?.data ?? Data(), as: UTF8.self)
            == #"{"access_token":"<TOKEN>","note":"your token is <TOKEN>","password":"[REDACTED]","refresh_token":"[REDACTED]"}"#,
            "a named value holding more than a placeholder stays redacted")
        #expect(stored.responseHeaders.first { $0.name == "Set-Cookie" }?.value == RedactionPolicy.marker)
        #expect(stored.responseHeaders.first { $0.name == "X-Echo" }?.value == "Bearer <TOKEN>")
    }

    @Test func playbackRestoresTheValuesTheTestGivesNow() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await recordLogin(in: folder, name: "login.sqlite")
        // The replaying test has no real credentials: dummies stand in, and still match the recorded requests.
        let cassette = try Cassette(path: path, mode: .none, matching: [.method, .path, .query, .headers(["Authorization"]), .body],
                                    secrets: ["TOKEN": "dummy-token", "API_KEY": "dummy-key"])
        let client = CassetteFixture.client(cassette.transport())
        let played = try await CassetteFixture.send(
            client, .post, "/login?user=ann&api_key=dummy-key", headers: [.authorization: "Bearer dummy-token"],
            body: #"{"token":"dummy-token","user":"ann"}"#)
        #expect(CassetteFixture.text(played)
            == #"{"access_token":"dummy-token","note":"your token is dummy-token","password":"[REDACTED]","refresh_token":"[REDACTED]"}"#)
        #expect(played.head.headerFields[HTTPField.Name("X-Echo")!] == "Bearer dummy-token")
        try cassette.assertAllPlayed()
    }

    @Test func aDifferentTokenDoesNotMatchAnAuthorizationMatcher() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try await recordLogin(in: folder, name: "login.har")
        let cassette = try Cassette(path: path, mode: .none, matching: [.method, .headers(["Authorization"])],
                                    secrets: ["TOKEN": "dummy-token"])
        let client = CassetteFixture.client(cassette.transport())
        let error = await CassetteFixture.cassetteError {
            try await CassetteFixture.send(client, .post, "/login", headers: [.authorization: "Bearer someone-else"])
        }
        #expect(error?.description == """
            no recorded interaction matches POST https://api.example.com/login
              #1 POST /login?api_key=%5BREDACTED%5D&user=ann — method ✓ headers ✗ (Authorization: Bearer <TOKEN> vs [REDACTED])
            """, "a placeholder this cassette was not given a secret for is redacted like any other value")
    }

    @Test func secretNamesMustMakePlaceholdersAndValuesMustDiffer() throws {
        #expect(throws: CassetteError.self) { try Cassette(path: "/nonexistent/x.har", mode: .all, secrets: ["A B": "v-123456"]) }
        #expect(throws: CassetteError(.invalidSecret, path: "/nonexistent/x.har", message: """
            secrets A and B have the same value: a placeholder could not tell them apart
            """)) { try Cassette(path: "/nonexistent/x.har", mode: .all, secrets: ["A": "same-1", "B": "same-1"]) }
        #expect(throws: CassetteError(.invalidSecret, path: "/nonexistent/x.har", message: """
            secret PIN is shorter than 6 bytes: it would be replaced inside innocent text
            """)) { try Cassette(path: "/nonexistent/x.har", mode: .all, secrets: ["PIN": "1234", "TOKEN": "long-enough"]) }
        _ = try Cassette(path: "/nonexistent/x.har", mode: .all, secrets: ["TOKEN": "", "KEY_2-b": "v-1234"])
    }
}
