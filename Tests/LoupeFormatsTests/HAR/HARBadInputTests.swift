import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats
import Testing
@testable import LoupeTestSupport

@Suite("HAR bad input")
struct HARBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var content: Data
        var code: HARImportError.Code
        var message: String
        var testDescription: String { name }
    }

    /// A valid file whose second entry is broken by `replace`.
    static func validThenBroken(_ original: String, _ replacement: String) -> Data {
        let entry = #"{"startedDateTime": "2024-03-10T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://a.test/", "headers": []}, "response": {"status": 200, "headers": [], "content": {"size": 0, "mimeType": "text/plain"}}}"#
        let broken = entry.replacingOccurrences(of: original, with: replacement)
        return Data(#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entry), \#(broken)]}}"#.utf8)
    }

    static let validHAR = String(decoding: try! HARExporter().data(for: HARFixtures.exchanges), as: UTF8.self)

    static let cases: [Case] = [
        Case(name: "empty file", content: Data(), code: .empty, message: "the file is empty"),
        Case(name: "only whitespace", content: Data(" \n\t".utf8), code: .empty, message: "the file is empty"),
        Case(name: "malformed JSON", content: Data("{\"log\": {\"version\": \"1.2\",\n \"entries\": [ x ]}}".utf8),
             code: .malformedJSON, message: "not valid JSON at byte 41 (line 2, column 15): invalid value"),
        Case(name: "truncated file", content: Data(validHAR.utf8.prefix(validHAR.utf8.count / 2)), code: .truncated,
             message: "the file is truncated: the JSON ends at byte \(validHAR.utf8.count / 2) before it is complete"),
        Case(name: "binary garbage", content: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
             code: .malformedJSON, message: "not valid JSON at byte 0 (line 1, column 1): invalid value"),
        Case(name: "wrong version", content: Data(#"{"log": {"version": "2.0", "entries": []}}"#.utf8),
             code: .unsupportedVersion, message: "unsupported HAR version \"2.0\" in log.version (Loupe reads 1.1 and 1.2)"),
        Case(name: "no log", content: Data(#"{"entries": []}"#.utf8), code: .notHAR,
             message: "not a HAR file: there is no \"log\" object"),
        Case(name: "no entries", content: Data(#"{"log": {"version": "1.2", "pages": []}}"#.utf8), code: .notHAR,
             message: "not a HAR file: log.entries is missing"),
        Case(name: "entries not an array", content: Data(#"{"log": {"entries": {}}}"#.utf8), code: .notHAR,
             message: "not a HAR file: log.entries is not an array"),
        Case(name: "top level an array", content: Data("[1, 2]".utf8), code: .notHAR,
             message: "not a HAR file: the top level is not a JSON object"),
        Case(name: "entry without url", content: validThenBroken(#""url": "https://a.test/", "#, ""),
             code: .invalidEntry, message: "log.entries[1].request.url is missing"),
        Case(name: "entry without request", content: validThenBroken(#""request""#, #""requests""#),
             code: .invalidEntry, message: "log.entries[1].request is missing"),
        Case(name: "headers not an array", content: validThenBroken(#""headers": []}, "response""#, #""headers": 5}, "response""#),
             code: .invalidEntry, message: "log.entries[1].request.headers is not an array"),
        Case(name: "bad date", content: validThenBroken("2024-03-10T10:00:00Z", "10/03/2024"), code: .invalidEntry,
             message: "log.entries[1].startedDateTime: not an ISO 8601 date: \"10/03/2024\""),
        Case(name: "bad base64", content: validThenBroken(#""mimeType": "text/plain""#, #""mimeType": "text/plain", "text": "*not base64*", "encoding": "base64""#),
             code: .invalidEntry,
             message: "log.entries[1].response.content.text: encoding is base64, but the text is not valid base64"),
        Case(name: "broken _loupe", content: validThenBroken(#""time": 1"#, #""time": 1, "_loupe": {"format": 1, "id": "nope"}"#),
             code: .invalidEntry,
             message: "log.entries[1]._loupe.id: Attempted to decode UUID from invalid UUID string."),
    ]

    @Test("bad input fails with a one-line reason and leaves the store empty", arguments: cases)
    func badInput(_ badCase: Case) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = URL(fileURLWithPath: folder.file("bad.har"))
        try badCase.content.write(to: file)
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let error = try #require(throws: HARImportError.self) { try HARImporter().importFile(at: file, into: store) }
        #expect(error.code == badCase.code)
        #expect(error.description == badCase.message)
        #expect(!error.description.contains("\n"))
        #expect(try store.count() == 0)
    }

    @Test("a missing file is unreadable")
    func missingFile() {
        let error = #expect(throws: HARImportError.self) {
            try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: "/nonexistent/x.har"))
        }
        #expect(error?.code == .unreadable)
        #expect(error?.description.hasPrefix("cannot read the file: ") == true)
    }

    @Test("_loupe data of an unknown format is ignored, not an error")
    func futureFormat() throws {
        let data = Self.validThenBroken(#""time": 1"#, #""time": 1, "_loupe": {"format": 99, "whatever": true}"#)
        #expect(try HARImporter().exchanges(from: data).count == 2)
    }
}
