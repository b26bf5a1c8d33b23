import Foundation
import Loupe
@testable import loupe
import LoupeTrace
import LoupeFormats
import Testing

@Suite("Control characters in CLI output")
struct TerminalTextTests {
    static let hostile = "a\u{1B}]0;owned\u{07}b\u{1B}[2J\u{9B}c\u{7F}\r\u{0}"

    static func containsControl(_ text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Bool {
        text.unicodeScalars.contains { TerminalText.isControl($0) && !allowed.contains($0) }
    }

    @Test("one-line text shows every control character as the TUI does")
    func line() {
        #expect(TerminalText.line(Self.hostile) == "a␛]0;owned␇b␛[2J\u{FFFD}c␡␍␀")
        #expect(TerminalText.line("x\ny\tz") == "x␊y␉z")
        #expect(TerminalText.line("plain ✓ text") == "plain ✓ text")
    }

    @Test("blocks keep line feeds, tabs and CRLF, and show everything else")
    func block() {
        #expect(TerminalText.block("one\r\ntwo\tthree\n\u{1B}[31mred\rfour") == "one\r\ntwo\tthree\n␛[31mred␍four")
    }

    @Test("any scalar sequence comes out without a control character but line feed and tab")
    func noControlsEscape() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let scalars = (0..<40).map { _ in Unicode.Scalar(UInt8.random(in: 0...0xFF, using: &generator)) }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(!Self.containsControl(TerminalText.line(text)))
            #expect(!Self.containsControl(TerminalText.block(text), allowing: ["\n", "\t", "\r"]))
        }
    }

    /// Runs `script` with /bin/sh and returns its standard output.
    static func shell(_ script: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    @Test("shell quoting carries no raw control character and gives the shell exactly the text")
    func shellQuoted() throws {
        for text in [Self.hostile.replacingOccurrences(of: "\u{0}", with: ""), "it's", "multi\nline\ttab", "", "é\u{85}"] {
            let quoted = TerminalText.shellQuoted(text)
            #expect(!Self.containsControl(quoted, allowing: ["\n", "\t"]))
            #expect(try Self.shell("printf '%s' " + quoted) == Data(text.utf8))
        }
    }

    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func hostileExchange() -> TraceExchange {
        TraceExchange(
            id: UUID(), sequence: 7, operation: "op\u{1B}[1m", method: "GET", url: "http://h.test/\u{1B}[2J?q=1",
            startedAt: start, endedAt: start.addingTimeInterval(0.5), outcome: .httpError, status: 500,
            error: "boom\u{1B}[0m",
            requestHeaders: [TraceHeader(name: "X-Evil", value: "v\u{1B}]52;c;aGk=\u{07}")],
            requestBody: TraceBody(data: Data("req\u{1B}[2J".utf8), size: 8, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain\r\nX-Fake: 1")],
            responseBody: TraceBody(data: Data("line one\n\tline\u{1B}[2J two\r\n".utf8), size: 20, isTruncated: false),
            attempts: [TraceAttempt(number: 1, startedAt: start, endedAt: start.addingTimeInterval(0.5), status: 500,
                                    error: "e\u{1B}", circuitState: "closed\u{1B}", retryReason: "r\u{9B}",
                                    retryDelay: 0.1, notes: ["k\u{1B}": "v\u{1B}"])],
            events: [TraceEvent(kind: "retry\u{1B}", at: start, message: "m\u{1B}[2J", attributes: ["a": "\u{1B}"])])
    }

    @Test("loupe show prints recorded data without control characters, keeping the body's lines")
    func show() {
        let text = ExchangeText.render(Self.hostileExchange())
        #expect(!Self.containsControl(text, allowing: ["\n", "\t", "\r"]))
        #expect(!text.unicodeScalars.contains("\u{1B}"))
        #expect(text.contains("GET http://h.test/␛[2J?q=1"))
        #expect(text.contains("Content-Type: text/plain␍␊X-Fake: 1"))
        // The detail document expands tabs (as the TUI draws them).
        #expect(text.contains("  line one\n      line␛[2J two"))
    }

    @Test("loupe curl prints a command without raw control characters that runs with the recorded arguments")
    func curl() throws {
        var exchange = Self.hostileExchange()
        exchange.method = "PUT"
        exchange.responseHeaders = []
        exchange.requestHeaders = [TraceHeader(name: "X-Evil", value: "v\u{1B}]52;c;aGk=\u{07}")]
        let command = CurlExporter.command(for: exchange)
        #expect(!Self.containsControl(command, allowing: ["\n"]))
        // A `curl` function that prints each argument NUL-terminated stands in for curl.
        let printed = try Self.shell(#"curl() { for a in "$@"; do printf '%s\0' "$a"; done; }; "# + command)
        let arguments = printed.split(separator: 0, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(arguments == CurlExporter.invocation(for: exchange).arguments)
    }
}
