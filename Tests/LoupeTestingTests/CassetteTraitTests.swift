import Foundation
import Loupe
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The `.cassette(…)` trait: a checked-in cassette replayed the way a user's test would, and the trait's scope
/// driven by hand to see what it does around a test body.
@Suite("Cassette trait")
struct CassetteTraitTests {
    /// Replays `Cassettes/items-page.har` beside this file (mode `.none`: it can never reach a network).
    @Test(.cassette("items-page", mode: .none))
    func aCheckedInCassetteReplays() async throws {
        let cassette = try #require(Cassette.current)
        #expect(cassette.path.hasSuffix("/LoupeTestingTests/Cassettes/items-page.har"))
        let client = CassetteFixture.client(cassette.transport())
        let response = try await CassetteFixture.send(client, "/items?page=1&limit=2")
        #expect(CassetteFixture.text(response) == #"{"items":[{"id":1},{"id":2}],"page":1}"#)
    }

    @Test func theScopeSetsTheCurrentCassetteAndChecksItAfterwards() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try CassetteFixture.write([CassetteFixture.exchange("/a"), CassetteFixture.exchange("/b")], to: folder.file("two.har"))
        let trait: CassetteTrait = .cassette("two", mode: .none, directory: folder.path)
        #expect(trait.path == folder.file("two.har"))
        let test = try #require(Test.current)
        #expect(Cassette.current == nil)

        await #expect(throws: CassetteError.self) {
            try await trait.provideScope(for: test, testCase: nil) {
                let cassette = try #require(Cassette.current)
                try await CassetteFixture.send(CassetteFixture.client(cassette.transport()), "/a")
            }
        }
        try await trait.provideScope(for: test, testCase: nil) {
            let client = CassetteFixture.client(try #require(Cassette.current).transport())
            try await CassetteFixture.send(client, "/a")
            try await CassetteFixture.send(client, "/b")
        }
        let lenient: CassetteTrait = .cassette("two.har", mode: .none, requireAllPlayed: false, directory: folder.path)
        try await lenient.provideScope(for: test, testCase: nil) {}
    }

    @Test func aStoreNameKeepsItsExtension() {
        let trait: CassetteTrait = .cassette("flows.sqlite", directory: "/fixtures")
        #expect(trait.path == "/fixtures/flows.sqlite")
        let beside: CassetteTrait = .cassette("x")
        #expect(beside.path == URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Cassettes/x.har")
    }
}
