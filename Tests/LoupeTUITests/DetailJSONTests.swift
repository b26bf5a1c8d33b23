import Foundation
@testable import LoupeTUI
import Testing

/// The pretty JSON view re-indents the text it was given and never re-encodes a value.
@Suite struct DetailJSONTests {
    private func reindent(_ text: String) -> (lines: [String], outcome: JSONReindenter.Outcome) {
        reindentStyled(Data(text.utf8))
    }

    private func reindentStyled(_ data: Data) -> (lines: [String], outcome: JSONReindenter.Outcome) {
        let result = JSONReindenter.reindent(data, indent: "")
        return (result.lines.map(\.text), result.outcome)
    }

    private func styled(_ text: String) -> [StyledLine] {
        JSONReindenter.reindent(Data(text.utf8), indent: "").lines
    }

    @Test func numbersStringsAndKeyOrderStayAsWritten() {
        let text = #"{"z":1.10,"big":12345678901234567890,"exp":-0.5E+10,"s":"caf\u00e9 \"q\" \/ \n","a":[true,false,null]}"#
        let result = reindent(text)
        #expect(result.outcome == .complete)
        #expect(result.lines == [
            "{",
            #"  "z": 1.10,"#,
            #"  "big": 12345678901234567890,"#,
            #"  "exp": -0.5E+10,"#,
            #"  "s": "caf\u00e9 \"q\" \/ \n","#,
            #"  "a": ["#,
            "    true,",
            "    false,",
            "    null",
            "  ]",
            "}",
        ])
        // Only whitespace changed: removing it from both gives the same bytes.
        #expect(result.lines.joined().filter { !$0.isWhitespace } == text.filter { !$0.isWhitespace })
    }

    @Test func whitespaceInsideStringsIsKeptAndEmptyContainersStayOnOneLine() {
        let result = reindent(" {\n\t\"a b\" :  { } , \"c\":[ ],\"d\":[{}]}\n")
        #expect(result.outcome == .complete)
        #expect(result.lines == ["{", #"  "a b": {},"#, #"  "c": [],"#, #"  "d": ["#, "    {}", "  ]", "}"])
    }

    @Test func tokensCarryTheirRoles() {
        let line = styled(#"{"k":"v","n":-1.5e3,"t":true}"#)[1...3]
        #expect(line.map { $0.spans.map(\.style) } == [
            [.normal, .label, .normal, .jsonString, .normal],
            [.normal, .label, .normal, .jsonNumber, .normal],
            [.normal, .label, .normal, .jsonLiteral],
        ])
        #expect(line.first?.spans.map(\.text) == ["  ", #""k""#, ": ", #""v""#, ","])
    }

    @Test func topLevelScalarsAndJSONLines() {
        #expect(reindent("  1.0e-7 ").lines == ["1.0e-7"])
        #expect(reindent(#""only""#).outcome == .complete)
        let lines = reindent("{\"a\":1}\n{\"a\":2}\n[3]")
        #expect(lines.outcome == .complete)
        #expect(lines.lines == ["{", #"  "a": 1"#, "}", "{", #"  "a": 2"#, "}", "[", "  3", "]"])
    }

    @Test(arguments: [
        (#"{"items":[1,2,"#, ["{", #"  "items": ["#, "    1,", "    2,"]),
        (#"{"a":"unterminated str"#, ["{", #"  "a": "unterminated str"#]),
        (#"[1.5e"#, ["[", "  1.5e"]),
        (#"[tr"#, ["[", "  tr"]),
        (#"{"k""#, ["{", #"  "k""#]),
        (#"{"k":"#, ["{", #"  "k": "#]),
        ("[\"a\\", ["[", "  \"a\\"]),
    ])
    func truncatedJSONIsIndentedAsFarAsItGoes(_ text: String, _ expected: [String]) {
        let result = reindent(text)
        #expect(result.outcome == .incomplete)
        #expect(result.lines == expected)
    }

    @Test func aKeyCutShortIsStillAKey() {
        #expect(styled(#"{"k""#)[1].spans.map(\.style) == [.normal, .label])
        #expect(styled(#"{"k":"v"#)[1].spans.map(\.style) == [.normal, .label, .normal, .jsonString])
    }

    @Test(arguments: [
        ("<html>", 0), ("{\"a\" 1}", 5), ("[1,,2]", 3), ("[01]", 1), ("[1.]", 1), ("{\"a\":1]", 6), ("[nul]", 1),
        ("[1 2]", 3), ("{1:2}", 1), ("   ", 0), ("[-]", 1), ("{\"a\":tru}", 5), ("]", 0), ("[1}", 2),
    ])
    func invalidJSONIsRefusedAtTheFirstBadByte(_ text: String, _ offset: Int) {
        #expect(reindent(text).outcome == .invalid(offset: offset))
    }

    @Test func deepNestingIsIterativeAndIndentationIsCapped() {
        let depth = 100_000
        let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        let result = reindent(text)
        #expect(result.outcome == .complete)
        #expect(result.lines.count == 2 * depth + 1)
        let deepest = String(repeating: " ", count: 2 * JSONReindenter.maxIndentDepth) + "1"
        #expect(result.lines[depth] == deepest)
        #expect(result.lines.allSatisfy { $0.count <= 2 * JSONReindenter.maxIndentDepth + 1 })
        // Cut short, it is still indented.
        #expect(reindent(String(repeating: "{\"a\":", count: depth)).outcome == .incomplete)
    }

    @Test func controlCharactersInsideStringsBecomePictures() {
        let result = reindentStyled(Data("{\"k\u{1B}\":\"v\u{1B}[2J\\\u{07}\u{85}\"}".utf8))
        #expect(result.outcome == .complete)
        #expect(result.lines == ["{", "  \"k␛\": \"v␛[2J\\␇\u{FFFD}\"", "}"])
    }

    @Test func invalidUTF8InsideStringsIsReplaced() {
        let result = reindentStyled(Data([0x5B, 0x22, 0xFF, 0xC3, 0x22, 0x5D]))
        #expect(result.outcome == .complete)
        #expect(result.lines == ["[", "  \"\u{FFFD}\u{FFFD}\"", "]"])
    }

    @Test(arguments: [
        ("0", JSONNumberGrammar.Verdict.valid), ("-0.0e-0", .valid), ("12345678901234567890", .valid), ("1E5", .valid),
        ("-", .prefix), ("1.", .prefix), ("2e", .prefix), ("2e+", .prefix),
        ("01", .invalid), ("1.e3", .invalid), ("+1", .invalid), ("1e5.0", .invalid), ("--1", .invalid), ("1-", .invalid),
    ])
    func numberGrammar(_ token: String, _ verdict: JSONNumberGrammar.Verdict) {
        let bytes = Array(token.utf8)
        #expect(bytes.withUnsafeBufferPointer { JSONNumberGrammar.classify($0) } == verdict)
    }
}
