import ArgumentParser
import Foundation
import HTTPTypes
@testable import loupe
import Loupe
import LoupeTrace
import Testing

/// What the CLI prints and rewrites is redacted like what it stores (issue 26, items 10–12).
@Suite("Redacted output")
struct RedactedOutputTests {
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "loupe-cli-redacted-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("send's failure line shows the URL without its password or query tokens")
    func sendFailureLine() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Port 1 on loopback refuses the connection at once.
        let url = "http://ada:PW-line-24680@127.0.0.1:1/x?access_token=AT-line-13579&page=2"
        let command = try SendCommand.parse(["GET", url, "--store", folder + "/t.sqlite", "--retries", "0"])
        var line: String?
        do {
            try await command.run()
        } catch {
            if case .failure(let text, _) = LoupeCommand.report(for: error) { line = text }
        }
        let printed = try #require(line)
        #expect(printed.hasPrefix("loupe: GET http://ada:%5BREDACTED%5D@127.0.0.1:1/x?access_token=%5BREDACTED%5D&page=2 failed"))
        #expect(!printed.contains("PW-line-24680") && !printed.contains("AT-line-13579"))
        // The store has neither either.
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] { bytes.append(FileManager.default.contents(atPath: folder + "/t.sqlite" + suffix) ?? Data()) }
        #expect(bytes.range(of: Data("PW-line-24680".utf8)) == nil && bytes.range(of: Data("AT-line-13579".utf8)) == nil)
    }

    @Test("a line about a request loses the URL's secrets wherever the line quotes them")
    func lineAboutURL() {
        let policy = RedactionPolicy()
        let url = "https://u:PW-about-11111@api.test/x?token=TK-about-22222"
        let line = policy.redact(text: "GET \(url) failed: connect to api.test (token TK-about-22222, user u:PW-about-11111)", about: url)
        #expect(!line.contains("PW-about-11111") && !line.contains("TK-about-22222"))
        #expect(line.hasPrefix("GET https://u:%5BREDACTED%5D@api.test/x?token=%5BREDACTED%5D failed"))
    }

    @Test("--data without a Content-Type is sent as a form, as curl does")
    func dataIsAForm() throws {
        let command = try SendCommand.parse(["POST", "http://127.0.0.1:1/login", "--data", "password=x"])
        #expect(try command.makeRequest().headerFields[.contentType] == "application/x-www-form-urlencoded")
        let typed = try SendCommand.parse(["POST", "http://127.0.0.1:1/login", "--data", "{}", "-H", "Content-Type: text/csv"])
        #expect(try typed.makeRequest().headerFields[.contentType] == "text/csv")
    }

    @Test("--json output escapes DEL, C1 controls and bidi controls")
    func jsonEscapesInvisibles() throws {
        let summary = TraceSummary(id: UUID(), sequence: 1, operation: "op\u{9B}2J\u{7F}", method: "GET",
                                   url: "http://x.test/\u{202E}gnp.exe\u{2066}", startedAt: Date(timeIntervalSince1970: 0),
                                   duration: 1, outcome: .success, status: 200, error: "\u{9D}0;title\u{07}",
                                   attemptCount: 1, replayOf: nil)
        let text = try Formatting.json(SummaryJSON(summary))
        for scalar in ["\u{9B}", "\u{9D}", "\u{7F}", "\u{202E}", "\u{2066}"] { #expect(!text.contains(scalar)) }
        #expect(text.contains(#"op\u009b2J\u007f"#) && text.contains(#"\u202egnp.exe\u2066"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["operation"] as? String == "op\u{9B}2J\u{7F}")
    }

    @Test("loupe redact FILE.har removes secrets from redirectURL, Location, custom fields and comments, streaming")
    func redactHAR() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entry = #"""
            {"startedDateTime":"2024-01-01T00:00:00.000Z","time":1,"comment":"debug: Bearer CM-Tok3n-112233",
             "_initiator":{"type":"script","url":"https://app.test/boot.js?api_key=IN-key-445566"},
             "request":{"method":"GET","url":"https://api.test/start","httpVersion":"HTTP/1.1","headers":[],
               "queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
             "response":{"status":302,"statusText":"Found","httpVersion":"HTTP/1.1",
               "headers":[{"name":"Location","value":"https://app.test/cb?access_token=LO-acc-778899"}],"cookies":[],
               "content":{"size":0,"mimeType":"text/plain"},"redirectURL":"https://app.test/cb?code=RD-code-990011&x=1",
               "headersSize":-1,"bodySize":0},
             "cache":{},"timings":{"send":0,"wait":1,"receive":0}}
            """#
        let clean = #"{"startedDateTime":"2024-01-01T00:00:01.000Z","time":1,"request":{"method":"GET","url":"https://api.test/ok"},"response":{"status":200}}"#
        let har = #"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"pages":[{"title":"LO-acc-778899"}],"entries":["#
            + entry + "," + clean + "]}}"
        let path = folder + "/in.har"
        try Data(har.utf8).write(to: URL(fileURLWithPath: path))
        let command = try RedactCommand.parse([path])
        try await command.run()
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        for secret in ["CM-Tok3n-112233", "IN-key-445566", "LO-acc-778899", "RD-code-990011"] {
            #expect(after.range(of: Data(secret.utf8)) == nil, "\(secret) survived")
        }
        let object = try #require(try JSONSerialization.jsonObject(with: after) as? [String: Any])
        let log = try #require(object["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect((entries[0]["response"] as? [String: Any])?["redirectURL"] as? String == "https://app.test/cb?code=%5BREDACTED%5D&x=1")
        #expect(entries[0]["comment"] as? String == "debug: Bearer [REDACTED]")
        // The clean entry is copied as it was.
        #expect(after.range(of: Data(clean.utf8)) != nil)
        // A second run changes nothing and leaves the file byte for byte.
        try await RedactCommand.parse([path]).run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == after)
    }

    @Test("a file redact refuses stays byte-identical and leaves no temporary file")
    func refusedHAR() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/bad.har"
        let bad = Data(#"{"log":{"entries":[{"request":{"url":"https://x.test/?token=TK-bad-1"}}"#.utf8)
        try bad.write(to: URL(fileURLWithPath: path))
        await #expect(throws: CommandFailure.self) { try await RedactCommand.parse([path]).run() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bad)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["bad.har"])
    }
}
