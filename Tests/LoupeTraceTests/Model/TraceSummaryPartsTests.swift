import Foundation
import Loupe
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// `TraceSummary.parts(of:)` cuts a plain URL directly instead of parsing it (DECISIONS 53): every answer must be
/// the one `URLComponents` gives.
@Suite("TraceSummary parts")
struct TraceSummaryPartsTests {
    static func expectSame(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = TraceSummary.parts(of: url), parsed = TraceSummary.partsParsing(url)
        #expect(fast.host == parsed.host && fast.pathAndQuery == parsed.pathAndQuery, "\(url)",
                sourceLocation: sourceLocation)
    }

    @Test("plain URLs give what URLComponents gives, query and fragment included")
    func plainURLs() {
        let urls = [
            "https://api.example.com/v1/ping", "http://localhost:8080/", "https://API.Example.COM/v1/users/42?page=2",
            "https://a.b/x;y=1/z:w?q=a/b?c#frag/x?y", "https://h/p#", "https://h/p?", "https://h/?a=1&b=2#x",
            "https://h/p#frag?x", "https://h/p?#", "https://h/p??a#b", "https://h:1/p?q=1",
        ]
        for url in urls {
            #expect(StoredURLParts.plain(url) != nil, "\(url) should take the direct path")
            Self.expectSame(url)
        }
    }

    @Test("other URLs get what URLComponents gives")
    func otherURLs() {
        let urls = [
            "", "/relative", "https://", "https://host", "https://host?q", "https://user:pw@host/p?x=1",
            "https://[::1]:8080/p", "https://caf%C3%A9.test/p", "https://h/a%20b?x", "https://h/a b",
            "https://h/p#a#b", "https://h/p?q=[1]", "file:///etc/hosts", "https://h/é?q", "mailto:a@b.c",
            "https://xn--caf-dma.test/v1", "not a url at all",
        ]
        for url in urls { Self.expectSame(url) }
    }

    @Test("random strings of URL characters get what URLComponents gives")
    func randomStrings() {
        var random = SeededGenerator(seed: 462)
        let alphabet = Array("ab9:/?#@%[].-_~!$&'()*+,;= |é///??##")
        let starts = ["https://", "http://a", "https://a.b", "https://a.b:80", "https://a.b/", "x://", ""]
        var direct = 0
        for _ in 0..<5_000 {
            let tail = String((0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let url = starts.randomElement(using: &random)! + tail
            if StoredURLParts.plain(url) != nil { direct += 1 }
            Self.expectSame(url)
        }
        #expect(direct > 100, "the direct path should take a share of these")
    }

    @Test("a summary made from an exchange carries the same host and path as before")
    func summaryOfExchange() {
        let exchange = TraceExchange(
            id: UUID(), operation: "GET /v1/ping", method: "GET", url: "https://api.example.com/v1/ping?x=1#f",
            startedAt: Date(timeIntervalSince1970: 0), outcome: .success)
        #expect(exchange.summary.host == "api.example.com")
        #expect(exchange.summary.pathAndQuery == "/v1/ping?x=1")
    }
}
