import Foundation
import Loupe
import LoupeTrace
import LoupeFormats
import Testing
@testable import LoupeTestSupport

@Suite("cURL export")
struct CurlExporterTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func exchange(method: String = "GET", url: String = "https://api.example.com/v1/users",
                         headers: [TraceHeader] = [], body: Data? = nil, truncated: Bool = false) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "op", method: method, url: url, startedAt: start, outcome: .success,
            requestHeaders: headers,
            requestBody: body.map { TraceBody(data: $0, size: truncated ? $0.count * 10 : $0.count, isTruncated: truncated) })
    }

    /// Runs `command` with `/bin/sh` (or bash), `curl` being a shell function that writes its arguments
    /// NUL-separated and its standard input to files; returns what curl would have received.
    ///
    /// A function rather than a script on `PATH`: the shell parses the words the same way, and no freshly written
    /// executable can be "busy" while parallel tests fork.
    static func run(_ command: String, shell: String = "/bin/sh") throws -> (arguments: [String], input: Data) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let fakeCurl = """
            curl() { for argument in "$@"; do printf '%s\\0' "$argument"; done > "$CURL_ARGUMENTS"; cat > "$CURL_INPUT"; }

            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-c", fakeCurl + command]
        var environment = ProcessInfo.processInfo.environment
        environment["CURL_ARGUMENTS"] = folder.file("arguments")
        environment["CURL_INPUT"] = folder.file("input")
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(command)")
        let raw = try Data(contentsOf: URL(fileURLWithPath: folder.file("arguments")))
        let arguments = raw.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
        return (arguments, try Data(contentsOf: URL(fileURLWithPath: folder.file("input"))))
    }

    static let nasty = "it's \"quoted\" $HOME ${PATH} `date` $(id) \\ \\' \n newline\ttab ; | & > < * ? [a] {b,c} ~ # ! é 👩‍💻 \u{7F}"

    static let cases: [TraceExchange] = [
        exchange(),
        exchange(method: "POST", headers: [TraceHeader(name: "Content-Type", value: "application/json")],
                 body: Data(#"{"name":"Zoë","quote":"it's"}"#.utf8)),
        exchange(method: "PUT", url: "https://api.example.com/x?q=a'b&r=$HOME", headers: [
            TraceHeader(name: "X-Nasty", value: nasty), TraceHeader(name: "X-Empty", value: ""),
        ], body: Data(nasty.utf8)),
        exchange(method: "PATCH", body: Data([0x00, 0x01, 0xFF, 0x27, 0x5C, 0x25, 0x0A, 0x41, 0x30, 0x37])),
        exchange(method: "GET", body: Data("@/etc/passwd".utf8)),
        exchange(method: "DELETE", url: "https://api.example.com/items/[1]/{2}"),
        exchange(method: "HEAD"),
        exchange(method: "POST"),
        exchange(method: "POST", body: Data()),
        exchange(method: "weird method'$", url: "-o/tmp/owned"),
        exchange(headers: [TraceHeader(name: "Accept-Encoding", value: "gzip, br"),
                           TraceHeader(name: "Content-Length", value: "999")]),
        exchange(method: "POST", body: Data(String(repeating: "ab'\n", count: 2000).utf8)),
    ]

    @Test("every argument and body byte survives the shell exactly", arguments: cases)
    func roundTrip(_ exchange: TraceExchange) throws {
        let invocation = CurlExporter.invocation(for: exchange)
        let command = CurlExporter.command(for: exchange)
        for shell in ["/bin/sh", "/bin/bash"] where FileManager.default.isExecutableFile(atPath: shell) {
            let (arguments, input) = try Self.run(command, shell: shell)
            #expect(arguments == invocation.arguments, "\(shell): \(command)")
            #expect(input == (invocation.standardInput ?? Data()), "\(shell): \(command)")
        }
        // And the request curl would send is the one recorded.
        if let body = exchange.requestBody {
            let sent = invocation.standardInput ?? invocation.arguments.last.map { Data($0.utf8) }
            #expect(sent == body.data)
        }
    }

    @Test("the method is given only when curl would not infer it")
    func methods() {
        #expect(CurlExporter.command(for: Self.exchange()) == "curl 'https://api.example.com/v1/users'")
        #expect(CurlExporter.invocation(for: Self.exchange(method: "POST", body: Data("a".utf8))).arguments
            == ["https://api.example.com/v1/users", "--data-binary", "a"])
        #expect(CurlExporter.invocation(for: Self.exchange(method: "POST")).arguments.dropFirst() == ["-X", "POST"])
        #expect(CurlExporter.invocation(for: Self.exchange(method: "GET", body: Data("a".utf8))).arguments.dropFirst()
            == ["-X", "GET", "--data-binary", "a"])
        #expect(CurlExporter.invocation(for: Self.exchange(method: "HEAD")).arguments.dropFirst() == ["--head"])
        #expect(CurlExporter.command(for: Self.exchange(method: "PUT")) == "curl 'https://api.example.com/v1/users' \\\n  -X PUT")
    }

    @Test("redacted headers are left out and named in a comment; the command still runs")
    func redactedHeaders() throws {
        let exchange = Self.exchange(headers: [
            TraceHeader(name: "Authorization", value: RedactionPolicy.marker),
            TraceHeader(name: "Accept", value: "application/json"),
            TraceHeader(name: "Cookie\nrm -rf /", value: RedactionPolicy.marker),
        ])
        let command = CurlExporter.command(for: exchange)
        #expect(command == """
            # Authorization was redacted
            # Cookie rm -rf / was redacted
            curl 'https://api.example.com/v1/users' \\
              -H 'Accept: application/json'
            """)
        #expect(!command.contains(RedactionPolicy.marker))
        #expect(try Self.run(command).arguments == ["https://api.example.com/v1/users", "-H", "Accept: application/json"])
    }

    @Test("the recorded traceparent and tracestate are left out: a pasted command is a new request (issue 43.13)")
    func traceContextLeftOut() throws {
        let exchange = Self.exchange(headers: [
            TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            TraceHeader(name: "TraceState", value: "vendor=abc"),
            TraceHeader(name: "Accept", value: "application/json"),
        ])
        let command = CurlExporter.command(for: exchange)
        #expect(command == """
            # traceparent left out: it names the recorded request's trace and span
            # TraceState left out: it names the recorded request's trace and span
            curl 'https://api.example.com/v1/users' \\
              -H 'Accept: application/json'
            """)
        #expect(try Self.run(command).arguments == ["https://api.example.com/v1/users", "-H", "Accept: application/json"])
    }

    @Test("--compressed only when Accept-Encoding was sent; Content-Length is left to curl")
    func compressed() {
        let with = CurlExporter.invocation(for: Self.cases[10]).arguments
        #expect(with.contains("--compressed"))
        #expect(!with.contains { $0.hasPrefix("Content-Length") })
        #expect(!CurlExporter.invocation(for: Self.cases[0]).arguments.contains("--compressed"))
    }

    @Test("binary bodies are piped in with printf; truncated bodies say so")
    func binaryAndTruncated() {
        let binary = CurlExporter.command(for: Self.cases[3])
        #expect(binary.hasPrefix(#"printf '\000\001\377\047\\%%\012A07' | curl 'https://api.example.com/v1/users' \"#
            + "\n  -X PATCH"))
        #expect(binary.hasSuffix("--data-binary @-"))
        let truncated = CurlExporter.command(for: Self.exchange(method: "POST", body: Data("abc".utf8), truncated: true))
        #expect(truncated.hasPrefix("# The request body was truncated when recorded: 3 of 30 bytes follow\n"))
    }

    @Test("empty header values use curl's `Name;` form, URLs with brackets turn globbing off")
    func curlSyntax() {
        #expect(CurlExporter.invocation(for: Self.cases[2]).arguments.contains("X-Empty;"))
        #expect(CurlExporter.invocation(for: Self.cases[5]).arguments.contains("--globoff"))
        #expect(CurlExporter.invocation(for: Self.cases[9]).arguments.contains("--url"))
        #expect(CurlExporter.quoted("it's") == #"'it'\''s'"#)
    }
}
