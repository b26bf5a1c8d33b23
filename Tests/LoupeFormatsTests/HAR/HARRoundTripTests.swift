import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats
import Testing
@testable import LoupeTestSupport

@Suite("HAR export and round trip")
struct HARRoundTripTests {
    /// Exchanges as a store gives them back: the same, without the store's sequence numbers.
    static func unsequenced(_ exchanges: [TraceExchange]) -> [TraceExchange] {
        exchanges.map { exchange in
            var copy = exchange
            copy.sequence = nil
            return copy
        }
    }

    @Test("export → import → export gives the same exchanges and the same bytes")
    func roundTripInMemory() throws {
        let first = try HARExporter().data(for: HARFixtures.exchanges)
        let imported = try HARImporter().exchanges(from: first)
        #expect(HARFixtures.difference(imported, HARFixtures.exchanges) == nil)
        let second = try HARExporter().data(for: imported)
        #expect(second == first)
    }

    @Test("the round trip through an SQLite store loses nothing")
    func roundTripThroughSQLite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try HARExporter().data(for: HARFixtures.exchanges)
        let file = URL(fileURLWithPath: folder.file("in.har"))
        try first.write(to: file)
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        #expect(try HARImporter().importFile(at: file, into: store) == HARFixtures.exchanges.count)
        let stored = try store.exchanges(matching: nil, limit: 100)
        #expect(HARFixtures.difference(Self.unsequenced(stored), HARFixtures.exchanges) == nil)
        #expect(try HARExporter().data(for: stored) == first)
    }

    @Test("the streamed file decodes to the same document the exporter builds")
    func writerMatchesDocument() throws {
        let data = try HARExporter().data(for: HARFixtures.exchanges)
        let decoded = try HARImporter.document(from: data)
        #expect(HARFixtures.difference(decoded, HARExporter().document(for: HARFixtures.exchanges)) == nil)
        #expect(decoded.log.version == "1.2")
        #expect(decoded.log.creator.name == "Loupe")
        let empty = try HARImporter.document(from: try HARExporter().data(for: []))
        #expect(empty.log.entries.isEmpty)
    }

    @Test("timings come from the final attempt; time is the sum of the known phases")
    func timings() throws {
        let entries = HARExporter().document(for: HARFixtures.exchanges).log.entries
        // Retried GET: blocked covers the first attempt and the back-off.
        let retried = entries[0].timings
        #expect(retried.blocked == 300.25)
        #expect(retried.send == 0.75 && retried.wait == 99 && retried.receive == 12.3)
        #expect([retried.dns, retried.connect, retried.ssl] == [-1, -1, -1])
        #expect(entries[0].time == 412.3)
        #expect(entries[0].startedDateTime == "2023-11-14T22:13:20.123Z")
        // Short circuit: nothing went on the wire.
        let shortCircuited = entries[3].timings
        #expect(shortCircuited.blocked == 0.02 && shortCircuited.send == -1 && shortCircuited.wait == -1)
        #expect(entries[3].time == 0.02)
        // First byte unknown: wait runs from the request being sent to the end, and says so.
        let noFirstByte = entries[4].timings
        #expect(noFirstByte.send == 1 && noFirstByte.wait == 39 && noFirstByte.receive == -1)
        #expect(noFirstByte.comment != nil)
        #expect(entries[4].time == 40)
        // Only start and end: wait from the attempt's start.
        #expect(entries[5].timings.send == -1 && entries[5].timings.wait == 90 && entries[5].time == 90)
    }

    @Test("requests and responses use HAR's fields: headers in order, query, cookies, bodies, status")
    func standardFields() throws {
        let entries = HARExporter().document(for: HARFixtures.exchanges).log.entries
        let get = entries[0]
        #expect(get.request.headers.map(\.name) == ["Authorization", "Accept", "Accept-Encoding", "Cookie"])
        #expect(get.request.headers[0].value == RedactionPolicy.marker)
        #expect(get.request.queryString == [HARNameValue(name: "page", value: "2"),
                                            HARNameValue(name: "access_token", value: "[REDACTED]")])
        #expect(get.request.cookies.isEmpty && get.response.cookies.isEmpty)  // redacted: no values to show
        #expect(get.request.postData == nil && get.request.bodySize == 0 && get.request.headersSize == -1)
        #expect(get.response.status == 200 && get.response.statusText == "OK")
        #expect(get.response.content.text == #"{"users":[{"id":1,"name":"Zoë"}]}"#)
        #expect(get.response.content.encoding == nil)

        let upload = entries[1]
        #expect(upload.request.postData?.encoding == "base64")
        #expect(upload.request.postData?.text == Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]).base64EncodedString())
        #expect(upload.request.postData?.mimeType == "image/png")
        #expect(upload.response.content.size == 5_000_000)
        #expect(upload.response.content.comment?.contains("first 21 of 5000000") == true)
        #expect(upload.response.redirectURL == "https://cdn.example.com/a.png")
        #expect(upload.loupe?.responseBody == HARLoupeBody(size: 5_000_000, truncated: true))
    }

    @Test("cookies come from Cookie and Set-Cookie headers that were not redacted")
    func cookies() {
        var exchange = HARFixtures.exchanges[0]
        exchange.requestHeaders = [TraceHeader(name: "cookie", value: "theme=dark; lang=fr; flag")]
        exchange.responseHeaders = [
            TraceHeader(name: "Set-Cookie", value: "sid=abc; Path=/; Domain=example.com; HttpOnly; Secure"),
            TraceHeader(name: "set-cookie", value: "b=2=3; Max-Age=60"),
        ]
        let entry = HARExporter().entry(for: exchange)
        #expect(entry.request.cookies.map(\.name) == ["theme", "lang", "flag"])
        #expect(entry.request.cookies.map(\.value) == ["dark", "fr", ""])
        #expect(entry.response.cookies == [
            HARCookie(name: "sid", value: "abc", path: "/", domain: "example.com", httpOnly: true, secure: true),
            HARCookie(name: "b", value: "2=3"),
        ])
    }

    @Test("a failed exchange has status 0, an empty status text, and its error in _loupe")
    func failedExchange() throws {
        let entry = HARExporter().entry(for: HARFixtures.exchanges[2])
        #expect(entry.response.status == 0)
        #expect(entry.response.statusText == "")
        #expect(entry.response.bodySize == -1)
        #expect(entry.loupe?.error == "connection refused (localhost:8080)")
        #expect(entry.loupe?.outcome == "transportError")
        #expect(entry.loupe?.attempts.count == 3)
        #expect(entry.loupe?.attempts[2].circuitState == "half-open")
    }

    @Test("_loupe keeps the exchange's record exactly")
    func loupeFields() throws {
        let exchange = HARFixtures.exchanges[4]
        let loupe = try #require(HARExporter().entry(for: exchange).loupe)
        #expect(loupe.id == exchange.id && loupe.replayOf == exchange.replayOf)
        #expect(loupe.operation == "café ☕︎ put")
        #expect(loupe.startedAt == exchange.startedAt)
        let json = String(decoding: try HARExporter().data(for: [exchange]), as: UTF8.self)
        #expect(json.contains("\"_loupe\" : {"))
        #expect(json.contains("\"replayOf\" : \"11111111-1111-4111-8111-111111111111\""))
    }
}
