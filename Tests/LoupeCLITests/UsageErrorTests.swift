import ArgumentParser
import Foundation
import LoupeTrace
@testable import loupe
import Testing

@Suite("One-line usage errors")
struct UsageErrorTests {
    /// What `loupe ARGUMENTS` reports when parsing (or validation) fails.
    static func report(_ arguments: [String]) -> ErrorReport? {
        do {
            _ = try LoupeCommand.parseAsRoot(arguments)
            return nil
        } catch {
            return LoupeCommand.report(for: error)
        }
    }

    static func expectOneLine(_ arguments: [String], _ expected: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .failure(let line?, let code) = report(arguments) else {
            Issue.record("\(arguments) did not fail with a line: \(String(describing: report(arguments)))",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(code == 2, sourceLocation: sourceLocation)
        #expect(line.hasPrefix("loupe: "), sourceLocation: sourceLocation)
        #expect(!line.contains("\n") && !line.contains("Usage:") && !line.contains("Error:"), sourceLocation: sourceLocation)
        if let expected { #expect(line == expected, sourceLocation: sourceLocation) }
    }

    static let send = ["send", "GET", "http://127.0.0.1:1/"]

    @Test("non-finite, huge, negative and zero values name the option, the range and the value")
    func numbers() {
        for value in ["inf", "nan", "1e300", "-1", "0", "-inf", "1e-300", "abc"] {
            Self.expectOneLine(Self.send + ["--timeout", value],
                               "loupe: --timeout: expected a number of seconds from 0.001 to 86400, got '\(value)'")
            Self.expectOneLine(Self.send + ["--deadline", value])
            Self.expectOneLine(Self.send + ["--breaker", "--breaker-wait", value])
            Self.expectOneLine(Self.send + ["--breaker-threshold", value])
            Self.expectOneLine(["demo", "--headless", "--duration", value])
            Self.expectOneLine(["list", "--limit", value],
                               "loupe: --limit: expected a whole number from 1 to 10000000, got '\(value)'")
            Self.expectOneLine(["prune", "--max-age", value])
        }
        for value in ["inf", "nan", "1e300", "-1", "abc", "99999999999999999999"] {
            Self.expectOneLine(Self.send + ["--retries", value],
                               "loupe: --retries: expected a whole number from 0 to 20, got '\(value)'")
            Self.expectOneLine(Self.send + ["--breaker-min-calls", value])
            Self.expectOneLine(["prune", "--max-bytes", value])
            Self.expectOneLine(["prune", "--max-count", value])
            Self.expectOneLine(["demo", "--port", value])
            Self.expectOneLine(["demo", "--workers", value])
            Self.expectOneLine(["demo", "--pause", value])
        }
        Self.expectOneLine(["demo", "--port", "70000"],
                           "loupe: --port: expected a port from 0 to 65535 (0 picks a free one), got '70000'")
    }

    @Test("a negative value reaches the range check instead of reading as an unknown option")
    func negatives() {
        Self.expectOneLine(Self.send + ["--timeout", "-1"], "loupe: --timeout: expected a number of seconds from 0.001 to 86400, got '-1'")
        Self.expectOneLine(Self.send + ["--timeout=-1"], "loupe: --timeout: expected a number of seconds from 0.001 to 86400, got '-1'")
        Self.expectOneLine(["prune", "--max-count", "-5"], "loupe: --max-count: expected a whole number from 0 to 2147483647, got '-5'")
    }

    @Test("values in range parse")
    func valid() throws {
        let send = try #require(try LoupeCommand.parseAsRoot(Self.send + ["--timeout", "2.5", "--retries", "3", "--deadline", "10"]) as? SendCommand)
        #expect(send.resilience.timeout?.duration == .milliseconds(2_500))
        #expect(send.resilience.retries.value == 3)
        #expect(send.resilience.attemptTimeout == .milliseconds(2_500))
        let list = try #require(try LoupeCommand.parseAsRoot(["list"]) as? ListCommand)
        #expect(list.limit.value == 50)
        #expect(throws: Never.self) { try LoupeCommand.parseAsRoot(["prune", "--max-bytes", "0.5", "--max-age", "1.5", "--max-count", "0"]) }
    }

    @Test("every other usage error is one loupe: line with exit 2")
    func usage() {
        Self.expectOneLine(["frobnicate"])
        Self.expectOneLine(["list", "--frob"])
        Self.expectOneLine(["list", "--limit"])
        Self.expectOneLine(["show"], "loupe: missing ID (an id, an id prefix or a sequence number)")
        Self.expectOneLine(["send", "FR OB", "http://127.0.0.1:1/"], "loupe: 'FR OB' is not an HTTP method")
        Self.expectOneLine(["send", "GET"])
        Self.expectOneLine(["send", "GET", "http://127.0.0.1:70000/"], "loupe: 'http://127.0.0.1:70000/': port 70000 is out of range (1 to 65535)")
        Self.expectOneLine(["send", "GET", "ftp://example.test/"])
    }

    @Test("help still goes to stdout with exit 0")
    func help() {
        for arguments in [["--help"], ["send", "--help"], ["help", "list"], ["list", "-h"]] {
            // Help parses to ArgumentParser's own help command, whose `run` throws the clean exit `main` reports.
            let report: ErrorReport?
            do {
                var command = try LoupeCommand.parseAsRoot(arguments)
                try command.run()
                report = nil
            } catch {
                report = LoupeCommand.report(for: error)
            }
            guard case .help(let text) = report else {
                Issue.record("\(arguments) is not help: \(String(describing: report))")
                continue
            }
            #expect(text.contains("USAGE"))
        }
    }

    @Test("`loupe help WORD` for a command that does not exist is bad usage, not help")
    func unknownHelpTopic() {
        #expect(LoupeCommand.unknownHelpTopic(["help", "bogus"]) == "bogus")
        #expect(LoupeCommand.unknownHelpTopic(["help", "rules", "bogus"]) == "bogus")
        #expect(LoupeCommand.unknownHelpTopic(["help", "list"]) == nil)
        #expect(LoupeCommand.unknownHelpTopic(["help", "rules", "check"]) == nil)
        #expect(LoupeCommand.unknownHelpTopic(["help"]) == nil)
        #expect(LoupeCommand.unknownHelpTopic(["list", "bogus"]) == nil)
    }

    @Test("--version prints the version and exits 0")
    func version() {
        let report: ErrorReport?
        do {
            _ = try LoupeCommand.parseAsRoot(["--version"])
            report = nil
        } catch {
            report = LoupeCommand.report(for: error)
        }
        #expect(report == .help(LoupeVersion.current))
    }

    @Test("the CLI's own failures keep their code and never print control characters")
    func commandFailures() {
        #expect(LoupeCommand.report(for: CommandFailure.failed("GET http://x/\u{1B}[2J failed")) ==
                .failure(line: "loupe: GET http://x/␛[2J failed", code: 1))
        #expect(LoupeCommand.report(for: CommandFailure.badInput("two\nlines")) == .failure(line: "loupe: two␊lines", code: 2))
        #expect(LoupeCommand.report(for: ExitCode(1)) == .failure(line: nil, code: 1))
    }

    @Test("ArgumentParser's wording becomes the CLI's")
    func wording() {
        #expect(LoupeCommand.oneLine("The value 'x' is invalid for '--limit <N>': expected y, got 'x'") == "--limit: expected y, got 'x'")
        #expect(LoupeCommand.oneLine("The value 'x' is invalid for '--mode <mode>'") == "--mode: invalid value 'x'")
        #expect(LoupeCommand.oneLine("Missing expected argument '<url>'\nHelp: <url> The URL.") == "missing expected argument '<url>'; Help: <url> The URL.")
        #expect(LoupeCommand.oneLine("URL is bad") == "URL is bad")
    }
}
