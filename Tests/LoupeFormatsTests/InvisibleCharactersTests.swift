import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats
import Testing

/// Bidi controls in text output and DEL/C1 in JSON output (issue 26, item 12).
@Suite("Invisible characters in output")
struct InvisibleCharactersTests {
    static let bidi: [Unicode.Scalar] = ["\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}",
                                         "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}"]

    @Test("text output shows bidi controls as other control characters are, never raw")
    func terminalText() {
        for scalar in Self.bidi {
            let shown = TerminalText.line("https://evil.test/\(scalar)gnp.exe")
            #expect(!shown.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16))")
            #expect(shown == "https://evil.test/\u{FFFD}gnp.exe")
        }
        #expect(TerminalText.block("a\u{202E}b\nc") == "a\u{FFFD}b\nc")
        #expect(TerminalText.line("plain ünïcode ✓") == "plain ünïcode ✓")
    }

    @Test("the curl command carries bidi controls as printf escapes: no raw control, the same bytes when run")
    func curlCommand() throws {
        let value = "a\u{202E}b\u{2066}c"
        let exchange = CurlExporterTests.exchange(url: "https://api.example.com/x\u{202E}y",
                                                  headers: [TraceHeader(name: "X-Label", value: value)])
        let command = CurlExporter.command(for: exchange)
        for scalar in Self.bidi { #expect(!command.unicodeScalars.contains(scalar)) }
        let (arguments, _) = try CurlExporterTests.run(command)
        #expect(arguments == CurlExporter.invocation(for: exchange).arguments)
        #expect(arguments.contains("X-Label: \(value)"))
    }

    @Test("a HAR export writes DEL, C1 and bidi controls as \\u escapes and reads back the same text")
    func harExport() throws {
        let nasty = "x\u{7F}\u{9B}2J\u{9D}0;t\u{07}\u{202E}é\u{2028}"
        let exchange = TraceExchange(
            id: UUID(), operation: nasty, method: "GET", url: "https://api.example.com/", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
            outcome: .success, status: 200, requestHeaders: [TraceHeader(name: "X-N", value: nasty)],
            responseBody: TraceBody(data: Data(nasty.utf8), size: nasty.utf8.count, isTruncated: false))
        let data = try HARExporter().data(for: [exchange])
        let text = String(decoding: data, as: UTF8.self)
        for scalar in ["\u{7F}", "\u{9B}", "\u{9D}", "\u{202E}", "\u{2028}"] as [Unicode.Scalar] {
            #expect(!text.unicodeScalars.contains(scalar))
        }
        #expect(text.contains(#"x\u007f\u009b2J\u009d0;t\u0007\u202eé\u2028"#))
        let back = try #require(try HARImporter(redaction: .none).exchanges(from: data).first)
        #expect(back.requestHeaders.first { $0.name == "X-N" }?.value == nasty)
        #expect(back.responseBody?.data == Data(nasty.utf8))
    }

    @Test("JSONInvisibles leaves other text alone")
    func untouched() {
        #expect(JSONInvisibles.escaped(#"{"a":"ünï ✓ \u0001"}"#) == #"{"a":"ünï ✓ \u0001"}"#)
        #expect(JSONInvisibles.escaped("{\"a\":\"\u{85}\"}") == #"{"a":"\u0085"}"#)
    }
}
