import Foundation
@testable import LoupeTUI
import LoupeTrace
import LoupeFormats
import Testing

/// Bodies in the pretty, raw and hex views.
@Suite struct DetailBodyTests {
    private static let json = [TraceHeader(name: "Content-Type", value: "application/json; charset=utf-8")]

    private func lines(_ body: TraceBody?, headers: [TraceHeader] = [], _ view: BodyView = .pretty) -> [String] {
        BodyFormatter.lines(body, headers: headers, view: view).map(\.text)
    }

    private func body(_ bytes: [UInt8], truncatedFrom size: Int? = nil) -> TraceBody {
        TraceBody(data: Data(bytes), size: size ?? bytes.count, isTruncated: size != nil)
    }

    @Test func prettyJSONKeepsEveryValueAndTheRawViewShowsTheBytes() {
        let text = #"{"price":1.10,"id":12345678901234567890}"#
        #expect(lines(Fixture.body(text), headers: Self.json) == ["  {", #"    "price": 1.10,"#, #"    "id": 12345678901234567890"#, "  }"])
        #expect(lines(Fixture.body(text), headers: Self.json, .raw) == ["  " + text])
    }

    @Test func undeclaredJSONIsRecognisedByItsFirstByteAndOtherTextIsText() {
        #expect(lines(Fixture.body(" [1]")) == ["  [", "    1", "  ]"])
        #expect(lines(Fixture.body("[not json")) == ["  [not json"])
        #expect(lines(Fixture.body("1.10")) == ["  1.10"])
    }

    @Test func declaredJSONThatIsNotJSONIsShownAsTextWithANote() {
        #expect(lines(Fixture.body("<html>oops</html>\n"), headers: Self.json)
            == ["  (not valid JSON at byte 0: shown as text)", "  <html>oops</html>"])
    }

    /// A tab appends its body's lines to its own (DECISIONS 83): what the body laid out before an error goes, and
    /// "no JSON at all" is judged on the body's lines, not on the lines already there.
    @Test(arguments: [
        (#"{"a":[1,2]}"#, true), (#"{"a":1} x"#, true), ("   ", true), (#"{"a":"#, true), ("[not json", false),
    ])
    func aBodyAppendedAfterOtherLinesReadsAsItDoesAlone(_ text: String, declaredJSON: Bool) {
        let headers = declaredJSON ? Self.json : []
        var appended = [StyledLine("head")]
        BodyFormatter.append(Fixture.body(text), headers: headers, view: .pretty, to: &appended)
        #expect(appended.map(\.text) == ["head"] + lines(Fixture.body(text), headers: headers))
        var jsonLines = [StyledLine("head")]
        let outcome = JSONReindenter.reindent(Data(text.utf8), indent: "", appendingTo: &jsonLines)
        #expect(outcome == JSONReindenter.reindent(Data(text.utf8), indent: "").outcome)
    }

    @Test func truncatedJSONIsIndentedWithANoteAndUnmarkedShortJSONSaysItEndsEarly() {
        #expect(lines(Fixture.body(#"{"a":[1,"#, truncatedFrom: 4096), headers: Self.json)
            == ["  {", #"    "a": ["#, "      1,", "  (truncated: 8 of 4,096 bytes stored)"])
        #expect(lines(Fixture.body(#"{"a":"#), headers: Self.json) == ["  {", #"    "a": "#, "  (the JSON ends early)"])
    }

    @Test func textKeepsItsLinesWithTabsExpandedAndControlsVisible() {
        let text = "line one\r\n\tline\u{1B}[2J two\r\n\nend\u{9B}\n"
        #expect(lines(Fixture.body(text)) == ["  line one", "      line␛[2J two", "  ", "  end\u{FFFD}"])
        #expect(lines(Fixture.body(text), .raw) == ["  line one", "      line␛[2J two", "  ", "  end\u{FFFD}"])
        #expect(lines(Fixture.body("no newline")) == ["  no newline"])
        #expect(lines(Fixture.body("\n")) == ["  "])
    }

    @Test func formBodiesAreDecodedForReadingInThePrettyViewOnly() {
        let form = [TraceHeader(name: "content-type", value: "application/x-www-form-urlencoded")]
        let text = "name=Zo%C3%AB+B&empty=&flag&esc=%1B%5B2J"
        #expect(lines(Fixture.body(text), headers: form) == ["  name: Zoë B", "  empty: ", "  flag: ", "  esc: ␛[2J"])
        #expect(lines(Fixture.body(text), headers: form, .raw) == ["  " + text])
        // Not percent-encoding: shown as it is.
        #expect(lines(Fixture.body("a=%zz"), headers: form) == ["  a=%zz"])
    }

    @Test func binaryIsAHexDumpOfEveryByte() {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0xFE] + Array(repeating: 0x41, count: 300)
        let shown = lines(body(bytes))
        #expect(shown[0] == "  <binary, 307 bytes>")
        #expect(shown[1] == "  0000  89 50 4e 47 00 ff fe 41  41 41 41 41 41 41 41 41  .PNG...AAAAAAAAA")
        #expect(shown.count == 1 + 20)
        // A short last row keeps the ASCII column where the full rows have it.
        #expect(shown.last == "  0130  41 41 41" + String(repeating: " ", count: 13 * 3 + 1 + 2) + "AAA")
        #expect(Set(shown.dropFirst().dropLast().map(\.count)) == [74])
        #expect(lines(body(bytes), .hex) == Array(shown.dropFirst()))
    }

    @Test func theHexViewDumpsTextToo() {
        #expect(lines(Fixture.body("héllo\u{1B}"), .hex)
            == ["  0000  68 c3 a9 6c 6c 6f 1b" + String(repeating: " ", count: 9 * 3 + 1 + 2) + "h..llo."])
    }

    @Test func largeOffsetsWiden() {
        let shown = lines(body(Array(repeating: 0, count: 0x10010)), .hex)
        #expect(shown.count == 0x1001)
        #expect(shown.last?.hasPrefix("  10000  00 00") == true)
    }

    @Test func invalidUTF8IsBinaryButATruncatedMultibyteTailIsText() {
        #expect(lines(body([0x68, 0x69, 0xC3, 0x28]))[0] == "  <binary, 4 bytes>")
        let cut = Array("héllo 日".utf8.dropLast(1))
        #expect(lines(body(cut, truncatedFrom: 100)) == ["  héllo ", "  (truncated: 9 of 100 bytes stored)"])
        #expect(lines(body(cut, truncatedFrom: 100), .raw) == ["  héllo \u{FFFD}", "  (truncated: 9 of 100 bytes stored)"])
    }

    @Test func emptyMissingAndUnstoredBodiesSaySo() {
        #expect(lines(nil) == ["  (none)"])
        #expect(lines(body([])) == ["  (empty)"])
        #expect(lines(body([], truncatedFrom: 10), .hex) == ["  (no bytes stored)", "  (truncated: 0 of 10 bytes stored)"])
    }

    @Test func noViewLetsAControlCharacterThrough() {
        var bytes = Array("{\"a\":\"\u{1B}]52;c;aGk=\u{07}\",\"\u{9B}k\":1}\u{1B}[2J\u{0}\r".utf8)
        bytes += [0xC2, 0x9B, 0x7F]
        for data in [bytes, Array(bytes.dropLast(6)), Array("x\u{1B}y\u{08}\u{0C}\n".utf8)] {
            for view in BodyView.allCases {
                for headers in [[], Self.json] {
                    let text = lines(body(data), headers: headers, view).joined()
                    #expect(!text.unicodeScalars.contains { TerminalText.isControl($0) }, "\(view) \(headers)")
                }
            }
        }
    }

    @Test func deferredLinesReadLikeOrdinaryLinesAndNeverUnderstateTheirWidth() {
        let samples: [(String, [TraceHeader])] = [
            ("{\"日本語\":\"値\t\u{1B}\",\"a\":[1,{}],\"b\":{\"c\":null}}", Self.json),
            ("{\"k\": \"" + String(repeating: "長い", count: 40) + "\"}", Self.json),
            ("col\tcol\t\tend\r\n日本\u{7F}\n\n" + String(repeating: "x", count: 90), []),
            ("\u{0}\u{1}binary\u{FF}", []),
        ]
        for (text, headers) in samples {
            for view in BodyView.allCases {
                for line in BodyFormatter.lines(Fixture.body(text), headers: headers, view: view) {
                    let ordinary = StyledLine(line.spans)
                    #expect(line == ordinary && ordinary == line)
                    #expect(line.hashValue == ordinary.hashValue)
                    #expect(line.widthBound >= DisplayWidth.of(line.text), "\(view): \(line.text)")
                    for width in [1, 7, 20, 80] { #expect(line.wrapped(to: width) == ordinary.wrapped(to: width)) }
                }
            }
        }
    }

    @Test func twoReadsOfADeferredLineAgree() {
        let lines = BodyFormatter.lines(Fixture.body(#"{"a":[1,2]}"#), headers: Self.json, view: .pretty)
        #expect(lines == BodyFormatter.lines(Fixture.body(#"{"a":[1,2]}"#), headers: Self.json, view: .pretty))
        #expect(lines.map(\.text) == lines.map(\.text))
        #expect(lines[1] != lines[2])
    }
}
