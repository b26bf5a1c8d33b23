import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats
import Synchronization
import Testing
@testable import LoupeTestSupport

@Suite("HAR import")
struct HARImportTests {
    static func date(_ text: String) -> Date { HARDate.date(from: text)! }

    @Test("a Chrome DevTools HAR imports: pages, cookies, base64 content, -1 timings, a failed request")
    func chrome() throws {
        let store = InMemoryTraceStore()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = URL(fileURLWithPath: folder.file("chrome.har"))
        try Data(HARFixtures.chromeHAR.utf8).write(to: file)
        #expect(try HARImporter().importFile(at: file, into: store) == 3)

        let listed = try store.summaries(matching: nil, limit: 10)
        #expect(listed.map(\.method) == ["GET", "GET", "POST"])
        #expect(listed.map(\.status) == [200, 200, nil])
        #expect(listed.map(\.outcome) == [.success, .success, .transportError])
        #expect(listed[0].operation == "GET /" && listed[2].operation == "POST /api/cart")

        let page = store.all[0]
        #expect(page.startedAt == Self.date("2024-03-10T10:00:00.015Z"))
        #expect(sameMicrosecond(page.endedAt, page.startedAt.addingTimeInterval(0.1205)))
        #expect(page.responseBody?.data == Data("<html><body>Shop</body></html>".utf8))
        #expect(page.requestHeaders.first?.name == ":authority")
        let attempt = try #require(page.attempts.first)
        #expect(sameMicrosecond(attempt.startedAt, page.startedAt.addingTimeInterval(0.0021)))
        #expect(sameMicrosecond(attempt.requestSentAt, attempt.startedAt.addingTimeInterval(0.0004)))
        #expect(sameMicrosecond(attempt.firstByteAt, attempt.startedAt.addingTimeInterval(0.1004)))
        #expect(attempt.status == 200)

        let image = store.all[1]
        #expect(image.responseBody?.data == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(image.endedAt == nil && image.attempts[0].requestSentAt == nil)

        let failed = store.all[2]
        #expect(failed.error == "net::ERR_CONNECTION_RESET")
        #expect(failed.requestBody?.data == Data("item=42&qty=2%20pcs".utf8))
        #expect(sameMicrosecond(failed.attempts[0].startedAt, failed.startedAt.addingTimeInterval(0.00125)))
        #expect(sameMicrosecond(failed.attempts[0].requestSentAt, failed.attempts[0].startedAt.addingTimeInterval(0.014)))
    }

    @Test("secrets in a HAR from elsewhere are redacted on the way in")
    func redactsOnImport() throws {
        var policy = RedactionPolicy()
        policy.queryItemNames = ["ref"]
        let exchanges = try HARImporter(redaction: policy).exchanges(from: Data(HARFixtures.chromeHAR.utf8))
        let page = exchanges[0]
        #expect(page.requestHeaders.first { $0.name == "authorization" }?.value == RedactionPolicy.marker)
        #expect(page.requestHeaders.first { $0.name == "cookie" }?.value == RedactionPolicy.marker)
        #expect(page.responseHeaders.first { $0.name == "set-cookie" }?.value == RedactionPolicy.marker)
        #expect(page.url == "https://shop.example.com/?ref=%5BREDACTED%5D")

        // Nowhere in the store file, nor in a HAR exported from it.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path)
        try store.write(exchanges)
        try store.close()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file(file)))
            #expect(bytes.range(of: Data("PLANTED".utf8)) == nil, "\(file)")
        }
        let exported = try HARExporter().data(for: exchanges)
        #expect(exported.range(of: Data("PLANTED".utf8)) == nil)
    }

    @Test("entries from other tools get distinct version-7 ids made in-process, as recorded exchanges do")
    func foreignIDs() throws {
        let exchanges = try HARImporter().exchanges(from: Data(HARFixtures.otherToolsHAR.utf8))
        #expect(exchanges.count == 2 && Set(exchanges.map(\.id)).count == 2)
        #expect(exchanges.allSatisfy { $0.id.uuid.6 >> 4 == 7 && $0.id.uuid.8 >> 6 == 0b10 })
    }

    @Test("other tools' shapes: missing fields, numbers as text, microseconds, no zone, content without text")
    func otherTools() throws {
        let ids = [UUID(), UUID()]
        let counter = SequentialIDs(ids)
        let exchanges = try HARImporter(makeID: { counter.next() }).exchanges(from: Data(HARFixtures.otherToolsHAR.utf8))
        #expect(exchanges.map(\.id) == ids)
        let image = exchanges[0]
        #expect(sameMicrosecond(image.startedAt, Date(timeIntervalSince1970: 1_710_072_000.123_456)))
        #expect(image.responseBody == TraceBody(data: Data(), size: 2048, isTruncated: true))
        #expect(sameMicrosecond(image.attempts[0].endedAt, image.startedAt.addingTimeInterval(0.010)))
        let patch = exchanges[1]
        #expect(patch.startedAt == Self.date("2024-03-10T12:00:01Z"))
        #expect(patch.endedAt == nil)
        #expect(patch.status == 404 && patch.outcome == .httpError)
        #expect(patch.requestHeaders == [TraceHeader(name: "X-Count", value: "3")])
        #expect(patch.requestBody?.data == Data(#"{"a":1}"#.utf8))
        #expect(patch.responseBody?.data == Data("not found".utf8))
    }

    @Test("bodies over the cap are kept cut, with the original size")
    func capsBodies() throws {
        let exchanges = try HARImporter(bodyCap: 10).exchanges(from: Data(HARFixtures.chromeHAR.utf8))
        #expect(exchanges[0].responseBody == TraceBody(data: Data("<html><bod".utf8), size: 30, isTruncated: true))
    }

    @Test("dates in every ISO 8601 shape HAR writers use", arguments: [
        ("2024-03-10T10:00:00Z", 1_710_064_800.0),
        ("2024-03-10T10:00:00.5Z", 1_710_064_800.5),
        ("2024-03-10T12:00:00.250+02:00", 1_710_064_800.25),
        ("2024-03-10T05:30:00-0430", 1_710_064_800.0),
        ("2024-03-10T11:00:00+01", 1_710_064_800.0),
        ("2024-03-10t10:00:00z", 1_710_064_800.0),
        ("2024-03-10 10:00:00", 1_710_064_800.0),
        ("2024-03-10T10:00", 1_710_064_800.0),
        ("1969-12-31T23:59:59.000Z", -1.0),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
    ])
    func dates(text: String, seconds: Double) {
        #expect(sameMicrosecond(HARDate.date(from: text), Date(timeIntervalSince1970: seconds)), "\(text)")
    }

    @Test("text that is not a date is refused", arguments: [
        "", "yesterday", "2024-13-01T00:00:00Z", "2024-03-10T25:00:00Z", "2024-03-10T10:00:00+", "2024-3-10",
        "2024-03-10T10:00:00Zjunk", "2024-03-10T10:00:00.Z",
    ])
    func notDates(text: String) {
        #expect(HARDate.date(from: text) == nil)
    }

    @Test("dates are written in UTC with milliseconds, rounded down")
    func writesDates() {
        #expect(HARDate.string(from: Date(timeIntervalSince1970: 1_710_064_800.999_9)) == "2024-03-10T10:00:00.999Z")
        #expect(HARDate.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(HARDate.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(HARDate.string(from: .distantFuture) == "4001-01-01T00:00:00.000Z")
    }
}

/// Hands out the given ids in order (for `makeID`).
final class SequentialIDs: Sendable {
    private let ids: [UUID]
    private let index = Mutex(0)

    init(_ ids: [UUID]) {
        self.ids = ids
    }

    func next() -> UUID {
        index.withLock { index in
            defer { index += 1 }
            return index < ids.count ? ids[index] : UUID()
        }
    }
}
