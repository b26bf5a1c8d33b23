import Foundation
import Loupe
import LoupeConfig
import LoupeRulesFile
@testable import LoupeRules
import LoupeTrace
import Testing

/// One reader of a rule's fields for the rules file's TOML and the link's JSON: the same rules, the same refusals.
@Suite struct RuleFieldsTests {
    @Test func theJSONFormCarriesEveryActionAndReadsBackTheSame() throws {
        let rules = try RulesDocument.parse(RulesDocumentTests.file)
        let json = RuleFields.json(rules)
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [Any], "\(json)")
        #expect(try RuleFields.rules(json: json) == rules, "\(json)")
        let odd = [
            try Rule(name: "q\"uo\\te", match: "~b \"a b\"", action: .mock(RuleMock(body: Data("line\n\t\u{1}end".utf8)))),
            try Rule(name: "bin", match: "~u .", action: .mock(RuleMock(body: Data([0xFF, 0x00, 0xFE])))),
            try Rule(name: "cut", match: "~u .", action: .fault(.cutBody(after: 10)), limits: RuleLimits(probability: 0.000_01)),
        ]
        #expect(try RuleFields.rules(json: RuleFields.json(odd)) == odd)
    }

    /// The same mistake says the same words from a file (with its line) and from the link.
    @Test(arguments: [
        ("times = 0\nfault = { status = 503 }", #""times":0,"fault":{"status":503}"#, "times must be a whole number"),
        ("fault = { status = 503, reset = true }", #""fault":{"status":503,"reset":true}"#, "give exactly one of"),
        ("rewrite = { remove_headers = [1] }", #""rewrite":{"remove_headers":[1]}"#, "remove_headers must be a list"),
        ("breaker = { key = \"k\", force = \"shut\" }", #""breaker":{"key":"k","force":"shut"}"#, "force must be"),
        // A header value with CR LF was let through: "\r\n" is one Character, equal to neither "\r" nor "\n".
        ("mock = { headers = { x = \"1\\r\\nevil: 1\" } }", #""mock":{"headers":{"x":"1\r\nevil: 1"}}"#, "must be a header name"),
        ("until = 2026-11-27T04:00:00Z\nfault = { status = 503 }", #""until":null,"fault":{"status":503}"#, "until must be a time"),
    ])
    func aFileAndTheLinkRefuseAlike(toml: String, json: String, words: String) throws {
        let file = "[[rule]]\nname = \"a\"\nmatch = \"~u .\"\n\(toml)\n"
        var fromFile = ""
        do { _ = try RulesDocument.parse(file); Issue.record("accepted \(file)") } catch { fromFile = error.reason }
        var fromLink = ""
        do {
            _ = try RuleFields.rules(json: #"[{"name":"a","match":"~u .",\#(json)}]"#)
            Issue.record("accepted \(json)")
        } catch { fromLink = error.reason }
        #expect(fromFile.contains(words), "\(fromFile)")
        #expect(fromFile == fromLink)
    }

    @Test func aDocumentPastItsBoundsIsRefused() {
        let many = "[" + (0...RuleFields.maxRules).map { #"{"name":"r\#($0)","match":"~u .","fault":{"status":503}}"# }
            .joined(separator: ",") + "]"
        #expect(throws: RuleFieldError("more than 1000 rules")) { try RuleFields.rules(json: many) }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: RuleFieldError.self) { try RuleFields.rules(json: deep) }
        let huge = "[" + String(repeating: " ", count: RuleFields.maxBytes) + "]"
        #expect(throws: RuleFieldError.self) { try RuleFields.rules(json: huge) }
    }
}
