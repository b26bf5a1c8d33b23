import Foundation
import Loupe
import LoupeConfig
import LoupeRulesFile
@testable import LoupeRules
import LoupeTrace
import Testing

/// The rules file's schema: every action read, written back the same, and each mistake one line with its place.
@Suite struct RulesDocumentTests {
    static let file = """
        # Rehearse an outage of getUser, answer listOrders from a recording, hold createOrder.
        [[rule]]
        name = "getUser down"
        match = "~op getUser"
        probability = 0.5
        times = 100
        until = "2030-01-01T00:00:00Z"
        fault = { status = 503 }

        [[rule]]
        name = "canned orders"
        match = "~op listOrders & ~m GET"
        mock = { status = 200, headers = { "content-type" = "application/json" }, body = '[{"id":1}]', from = 12 }

        [[rule]]
        name = "staging"
        match = "~d api.example.com"
        enabled = false
        rewrite = { set_headers = { "x-debug" = "1" }, remove_headers = ["cookie"], base_url = "http://127.0.0.1:9000" }

        [[rule]]
        name = "hold orders"
        match = "~op createOrder"
        [rule.breakpoint]
        request = true
        response = true

        [[rule]]
        name = "force getUser open"
        breaker = { key = "getUser", force = "open" }

        [[rule]]
        name = "slow"
        match = "~u ."
        fault = { delay_ms = 250 }
        """

    @Test func everyActionReadsAndWritesBackTheSame() throws {
        let rules = try RulesDocument.parse(Self.file)
        #expect(rules.map(\.name) == ["getUser down", "canned orders", "staging", "hold orders", "force getUser open", "slow"])
        #expect(rules[0].action == .fault(.status(503)))
        #expect(rules[0].limits == RuleLimits(times: 100, until: Date(timeIntervalSince1970: 1_893_456_000), probability: 0.5))
        #expect(rules[1].action == .mock(RuleMock(status: 200, headers: [TraceHeader(name: "content-type", value: "application/json")],
                                                  body: Data("[{\"id\":1}]".utf8), recordedFrom: 12)))
        #expect(!rules[2].limits.enabled)
        #expect(rules[3].action == .breakpoint(RuleBreakpoint(request: true, response: true)))
        #expect(rules[4].action == .breaker(key: "getUser", override: .open))
        #expect(rules[5].action == .fault(.latency(.milliseconds(250))))
        let again = try RulesDocument.parse(RulesDocument.text(rules))
        #expect(again == rules, "written and read back: \(RulesDocument.text(rules))")
    }

    @Test func textWithControlCharactersAndQuotesRoundTrips() throws {
        let rule = try Rule(name: "q\"uo\\te", match: "~b \"a b\"",
                            action: .mock(RuleMock(body: Data("line\n\t\u{1}end".utf8))))
        #expect(try RulesDocument.parse(RulesDocument.text([rule])) == [rule])
        let binary = try Rule(name: "bin", match: "~u .", action: .mock(RuleMock(body: Data([0xFF, 0x00, 0xFE]))))
        #expect(try RulesDocument.parse(RulesDocument.text([binary])) == [binary])
    }

    @Test(arguments: [
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 \n", 4, "expected"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 }\nmock = { status = 200 }\n", 1, "exactly one action"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nprobability = 2\nfault = { status = 503 }\n", 4, "probability must be"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~op\"\nfault = { status = 503 }\n", 3, "match:"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 700 }\n", 4, "status from 100 to 599"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 }\n[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { reset = true }\n", 6, "two rules are named"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfualt = { status = 503 }\n", 4, "unknown key 'fualt'"),
        ("[[rule]]\nmatch = \"~u .\"\nfault = { status = 503 }\n", 1, "needs a name"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nrewrite = { base_url = \"http://h:99999\" }\n", 4, "base_url"),
        // Issue 43.15: a response term can never be true of a request about to be sent; said on the match line.
        ("[[rule]]\nname = \"a\"\n\nmatch = \"~c 5xx\"\nfault = { status = 503 }\n", 4, "~c is about the response"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~op x & !(~dur >1s)\"\nfault = { status = 503 }\n", 3, "~dur is about the response"),
        ("[[rule]]\nname = \"a\"\nmatch = \"~m GET | ~e\"\nfault = { status = 503 }\n", 3, "~e is about the response"),
        ("[[rule]]\nname = \"a\"\n  match=\"~cb open\"\nfault = { status = 503 }\n", 3, "~cb is about the response"),
        ("rules = 1\n", 1, "unknown key 'rules'"),
        ("[é]\n", 1, "section"),
    ])
    func aMistakeIsOneLineWithItsPlace(text: String, line: Int, words: String) {
        do {
            _ = try RulesDocument.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line, "\(error.message(file: "rules.toml"))")
            #expect(error.message(file: "r").contains(words), "\(error.message(file: "r"))")
            #expect(!error.message(file: "r").contains("\n"))
        }
    }

    @Test func anAppReadsTheFileAndReadsItAgainWhenItChanges() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID()).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let book = RuleBook()
        let file = RulesFile(path: path, book: book, interval: .milliseconds(20))
        defer { file.stop() }
        #expect(book.entries.map(\.rule.name) == ["a"] && book.isActive)
        try "[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 \n".write(toFile: path, atomically: true, encoding: .utf8)
        file.load()
        #expect(book.entries.isEmpty && !book.isActive, "a broken file leaves no rules")
        try "[[rule]]\nname = \"b\"\nmatch = \"~u .\"\nfault = { reset = true }\n".write(toFile: path, atomically: true, encoding: .utf8)
        file.load()
        #expect(book.entries.map(\.rule.name) == ["b"])
        #expect(RulesFile.problemLine(ConfigFileError(line: 3, "x"), path: "r.toml") == "loupe: rules file r.toml:3: x; running with no rules from it")
    }

    @Test func onlyAnAppThatOptedInGetsABook() {
        #expect(RuleBook.forApp(linkConfigured: false, environment: [:]) == nil)
        #expect(RuleBook.forApp(linkConfigured: true, environment: [:]) != nil)
        let withFile = RuleBook.forApp(linkConfigured: false, environment: ["LOUPE_RULES": "/nonexistent/rules.toml"])
        #expect(withFile?.book.entries.isEmpty == true)
        withFile?.file?.stop()
    }
}
