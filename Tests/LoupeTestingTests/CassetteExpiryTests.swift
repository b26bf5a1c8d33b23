import Foundation
import Loupe
import LoupeTesting
import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// `maxAge` against an injected clock: the recording is from `recordedAt`, and "now" is whatever the test says.
@Suite("Cassette expiry")
struct CassetteExpiryTests {
    private let recordedAt = CassetteFixture.recordedAt

    private func writeOld(in folder: TemporaryFolder) throws -> String {
        let path = folder.file("old.har")
        try CassetteFixture.write([
            CassetteFixture.exchange("/items", body: "old", at: recordedAt),
            CassetteFixture.exchange("/more", body: "newer", at: recordedAt.addingTimeInterval(86_400)),
        ], to: path)
        return path
    }

    private func now(daysLater days: Double) -> @Sendable () -> Date {
        let date = recordedAt.addingTimeInterval(days * 86_400)
        return { date }
    }

    @Test func aFreshRecordingPlaysWhateverTheAction() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try writeOld(in: folder)
        let cassette = try Cassette(path: path, mode: .none, maxAge: .seconds(3 * 86_400), onExpiry: .fail,
                                    now: now(daysLater: 2.9))
        #expect(cassette.interactions.count == 2)
    }

    @Test func failRefusesAnExpiredRecording() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try writeOld(in: folder)
        #expect(throws: CassetteError(.expired, path: path, message: """
            cassette \(path) was recorded 3.5 days ago, more than its maxAge of 3 days
            """)) {
            try Cassette(path: path, mode: .none, maxAge: .seconds(3 * 86_400), onExpiry: .fail, now: now(daysLater: 3.5))
        }
    }

    @Test func warnPlaysAnExpiredRecording() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try writeOld(in: folder)
        // The warning is a Swift Testing issue of severity `.warning`, which does not fail this test.
        let cassette = try Cassette(path: path, mode: .none, maxAge: .seconds(3_600), now: now(daysLater: 10))
        let client = CassetteFixture.client(cassette.transport())
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items")) == "old")
    }

    @Test func reRecordThrowsTheRecordingAwayAndRecordsAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try writeOld(in: folder)
        let upstream = CassetteFixture.upstream([.status(200, body: Data("fresh".utf8))])
        let later = now(daysLater: 30)
        let cassette = try Cassette(path: path, mode: .once, maxAge: .seconds(7 * 86_400), onExpiry: .reRecord, now: later)
        #expect(cassette.mode == .all)
        let client = CassetteFixture.client(cassette.transport(upstream: upstream))
        #expect(CassetteFixture.text(try await CassetteFixture.send(client, "/items")) == "fresh")

        let reopened = try Cassette(path: path, mode: .none, maxAge: .seconds(7 * 86_400), onExpiry: .fail, now: later)
        #expect(reopened.interactions.map(\.url) == ["https://api.example.com/items"])
        #expect(reopened.interactions.map(\.startedAt) == [later()], "recorded at the cassette's clock")
    }

    @Test func reRecordCannotWhenTheModeNeverRecords() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try writeOld(in: folder)
        #expect(throws: CassetteError(.expired, path: path, message: """
            cassette \(path) was recorded 2 h ago, more than its maxAge of 1 h; mode .none cannot re-record it
            """)) {
            try Cassette(path: path, mode: .none, maxAge: .seconds(3_600), onExpiry: .reRecord,
                         now: { self.recordedAt.addingTimeInterval(7_200) })
        }
    }
}
