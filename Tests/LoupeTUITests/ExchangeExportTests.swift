import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats
import LoupeTUI
import Testing

@Suite("Exporting exchanges")
struct ExchangeExportTests {
    /// A temporary folder removed when the test ends.
    final class Folder {
        let path = NSTemporaryDirectory() + "loupe-export-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }
    }

    /// Times on binary fractions of a second, so they survive HAR's microsecond grid exactly.
    static func exchange(_ number: Int, body: String? = nil, status: Int? = 200, error: String? = nil) -> TraceExchange {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(number))
        let attempt = TraceAttempt(
            number: 1, startedAt: start, requestSentAt: start.addingTimeInterval(0.125),
            firstByteAt: start.addingTimeInterval(0.25), endedAt: start.addingTimeInterval(0.5), status: status,
            error: error, circuitState: "closed")
        return TraceExchange(
            id: UUID(uuidString: "00000000-0000-0000-0000-" + String(format: "%012d", number))!, operation: "op\(number)",
            method: body == nil ? "GET" : "POST", url: "https://api.example.com:8443/items/\(number)?q=a%20b",
            startedAt: start, endedAt: start.addingTimeInterval(0.5), outcome: status == nil ? .transportError : .success,
            status: status, error: error,
            requestHeaders: [TraceHeader(name: "Accept", value: "application/json")],
            requestBody: body.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count, isTruncated: false) },
            responseHeaders: status == nil ? [] : [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: status == nil ? nil : TraceBody(data: Data("{\"n\":\(number)}".utf8), size: 7, isTruncated: false),
            attempts: [attempt], events: [])
    }

    static let exchanges = [exchange(1), exchange(2, body: "{\"name\":\"ada\"}"), exchange(3, status: nil, error: "connection refused")]

    @Test("a HAR export is read back by HARImporter as the same exchanges")
    func harRoundTrip() throws {
        let folder = try Folder()
        let message = try ExchangeExport.write(Self.exchanges, as: .har, to: folder.path + "/x.har")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: folder.path + "/x.har")[.size] as? Int)
        #expect(message.hasPrefix("wrote 3 exchanges as HAR to \(folder.path)/x.har ("))
        #expect(message.hasSuffix(" KiB)") || message.hasSuffix(" B)"))
        #expect(size > 1000)
        let imported = try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: folder.path + "/x.har"))
        #expect(imported == Self.exchanges)
        #expect(folder.contents == ["x.har"])
    }

    @Test("the file is created 0600")
    func permissions() throws {
        let folder = try Folder()
        _ = try ExchangeExport.write(Self.exchanges, as: .curl, to: folder.path + "/x.sh")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/x.sh")
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
    }

    @Test("an existing file is never replaced, and the refusal says so")
    func noOverwrite() throws {
        let folder = try Folder()
        let path = folder.path + "/keep.har"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ExportError("\(path) already exists; export never replaces a file, so give a new name")) {
            try ExchangeExport.write(Self.exchanges, as: .har, to: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("precious".utf8))
        #expect(folder.contents == ["keep.har"])
        // A folder is something existing too.
        #expect(throws: ExportError("\(folder.path) already exists; export never replaces a file, so give a new name")) {
            try ExchangeExport.write(Self.exchanges, as: .raw, to: folder.path)
        }
    }

    @Test("~ is the home folder, relative paths start at the current directory, spaces around are dropped")
    func paths() throws {
        let environment = ["HOME": "/home/ada"]
        func resolved(_ typed: String) throws -> String {
            try ExchangeExport.resolvedPath(typed, environment: environment, currentDirectory: "/work/dir")
        }
        #expect(try resolved("~/x.har") == "/home/ada/x.har")
        #expect(try resolved("x.har") == "/work/dir/x.har")
        #expect(try resolved("  ../out/x.har ") == "/work/out/x.har")
        #expect(try resolved("/tmp/./x.har") == "/tmp/x.har")
        #expect(try resolved("~bob/x") == "/work/dir/~bob/x")
        #expect(throws: ExportError("no file name given")) { try resolved("  ") }

        let folder = try Folder()
        let message = try ExchangeExport.write(
            [Self.exchange(1)], as: .raw, to: "~/one.http", environment: ["HOME": folder.path], currentDirectory: "/")
        #expect(message.hasPrefix("wrote 1 exchange as raw HTTP to \(folder.path)/one.http ("))
        _ = try ExchangeExport.write(
            [Self.exchange(1)], as: .raw, to: "two.http", environment: [:], currentDirectory: folder.path)
        #expect(folder.contents == ["one.http", "two.http"])
    }

    @Test("failures are one line and leave nothing behind")
    func failures() throws {
        let folder = try Folder()
        #expect(throws: ExportError("cannot write \(folder.path)/missing/x.har: No such file or directory (no folder \(folder.path)/missing)")) {
            try ExchangeExport.write(Self.exchanges, as: .har, to: folder.path + "/missing/x.har")
        }
        #expect(throws: ExportError("nothing to export")) {
            try ExchangeExport.write([], as: .har, to: folder.path + "/empty.har")
        }
        struct ReadFailure: Error, CustomStringConvertible { var description: String { "the store\nwent away" } }
        #expect(throws: ExportError("cannot export: the store␊went away")) {
            try ExchangeExport.write(as: .curl, to: folder.path + "/x.sh") { emit in
                try emit(Self.exchange(1))
                throw ReadFailure()
            }
        }
        #expect(folder.contents == [])
    }

    @Test("curl: one command per exchange, as CurlExporter writes it, a blank line between")
    func curl() throws {
        let data = try ExchangeExport.data(for: Self.exchanges, as: .curl)
        let expected = Self.exchanges.map { CurlExporter.command(for: $0) + "\n" }.joined(separator: "\n")
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test("raw: HTTP/1.1 request, blank line, response; ---- between exchanges")
    func raw() throws {
        let data = try ExchangeExport.data(for: Self.exchanges, as: .raw)
        let expected = """
            GET /items/1?q=a%20b HTTP/1.1\r
            Host: api.example.com:8443\r
            Accept: application/json\r
            \r
            \r
            HTTP/1.1 200 OK\r
            Content-Type: application/json\r
            \r
            {"n":1}\r
            \r
            ----\r
            \r
            POST /items/2?q=a%20b HTTP/1.1\r
            Host: api.example.com:8443\r
            Accept: application/json\r
            \r
            {"name":"ada"}\r
            \r
            HTTP/1.1 200 OK\r
            Content-Type: application/json\r
            \r
            {"n":2}\r
            \r
            ----\r
            \r
            GET /items/3?q=a%20b HTTP/1.1\r
            Host: api.example.com:8443\r
            Accept: application/json\r
            \r

            """
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test("raw: a recorded Host is kept, user information never becomes one, a header cannot split the message")
    func rawHeaders() throws {
        var exchange = Self.exchange(1)
        exchange.url = "http://user:secret@[::1]:8080"
        exchange.requestHeaders = [TraceHeader(name: "X-Evil", value: "a\r\nInjected: yes")]
        let text = String(decoding: try ExchangeExport.data(for: [exchange], as: .raw), as: UTF8.self)
        #expect(text.hasPrefix("GET / HTTP/1.1\r\nHost: [::1]:8080\r\nX-Evil: a Injected: yes\r\n\r\n"), "\(text)")
        exchange.requestHeaders = [TraceHeader(name: "host", value: "example.org")]
        let kept = String(decoding: try ExchangeExport.data(for: [exchange], as: .raw), as: UTF8.self)
        #expect(kept.hasPrefix("GET / HTTP/1.1\r\nhost: example.org\r\n\r\n"))
    }

    @Test("format names and extensions")
    func formats() {
        #expect(ExportFormat.allCases.map(\.rawValue) == ["curl", "har", "raw"])
        #expect(ExportFormat.allCases.map(\.fileExtension) == ["sh", "har", "http"])
        #expect(ExportFormat(rawValue: "har") == .har)
    }
}
