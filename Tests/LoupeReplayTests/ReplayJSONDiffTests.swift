import Foundation
@testable import LoupeTrace
@testable import LoupeReplay
import Testing

@Suite("Replay diff: JSON")
struct ReplayJSONDiffTests {
    static func parse(_ text: String) throws -> JSONValue {
        try #require(JSONParser.parse(Data(text.utf8)), "not JSON: \(text)")
    }

    static func diff(_ old: String, _ new: String) throws -> [String] {
        JSONDiff.differences(try parse(old), try parse(new)).map(\.description)
    }

    @Test("numbers keep their text and compare by decimal value, never through Double")
    func numbers() throws {
        #expect(try Self.parse("[1.0, 1e2, -0, 0.1]").compactText() == "[1.0,1e2,-0,0.1]")
        #expect(try Self.parse("1.0") == Self.parse("1"))
        #expect(try Self.parse("1e2") == Self.parse("100"))
        #expect(try Self.parse("100E-2") == Self.parse("1.00"))
        #expect(try Self.parse("-0") == Self.parse("0.0"))
        #expect(try Self.parse("0.1") != Self.parse("0.10000000000000001"))  // equal as Double
        #expect(try Self.parse("12345678901234567890") != Self.parse("12345678901234567891"))  // equal as Double
        #expect(try Self.parse("-1") != Self.parse("1"))
        #expect(try Self.parse("1e99999999999999999999") != Self.parse("1"))
        #expect(try Self.diff(#"{"price": 10.50}"#, #"{"price": 10.5}"#) == [])
        #expect(try Self.diff(#"{"id": 9007199254740993}"#, #"{"id": 9007199254740992}"#)
                == ["$.id: 9007199254740993 → 9007199254740992"])
    }

    @Test("objects keep key order, compare without it; a repeated key keeps its last value")
    func objects() throws {
        #expect(try Self.parse(#"{"b": 1, "a": [true, null, "x"]}"#).compactText() == #"{"b":1,"a":[true,null,"x"]}"#)
        #expect(try Self.parse(#"{"b": 1, "a": 2}"#) == Self.parse(#"{"a": 2, "b": 1}"#))
        #expect(try Self.parse(#"{"a": 1, "b": 2, "a": 3}"#).compactText() == #"{"a":3,"b":2}"#)
    }

    @Test("strings: escapes, surrogate pairs, a byte order mark")
    func strings() throws {
        #expect(try Self.parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\né😀"))
        #expect(try Self.parse("\u{FEFF}{\"a\": 1}") == Self.parse(#"{"a":1}"#))
        #expect(try Self.parse(#""\u001b[2J""#).compactText() == #""\u001b[2J""#)
    }

    @Test("what is not JSON is refused, including nesting past the limit")
    func refused() {
        for text in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "1e", "tru", "[1] x", "\"a\u{01}b\"", "\"\\x\"",
                     "{\"a\":1,}", "\"abc", "[\"\\u12\"]", "NaN", "Infinity"] {
            #expect(JSONParser.parse(Data(text.utf8)) == nil, "parsed: \(text)")
        }
        #expect(JSONParser.parse(Data([0x22, 0xFF, 0x22])) == nil)  // invalid UTF-8 in a string
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(JSONParser.parse(Data(deep.utf8)) == nil)
        let deepest = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(JSONParser.parse(Data(deepest.utf8)) != nil)
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        #expect(JSONParser.parse(Data(hostile.utf8)) == nil)
    }

    @Test("changes, added and removed keys, array elements, with JSONPath paths")
    func paths() throws {
        let old = #"{"items": [{"id": 1, "price": 10}, {"id": 2, "price": 10}, {"id": 3, "price": 10}, {"id": 4, "price": 10}], "meta": {"page": 1, "old": "x"}}"#
        let new = #"{"items": [{"id": 1, "price": 10}, {"id": 2, "price": 10}, {"id": 3, "price": 10}, {"id": 4, "price": 12}, {"id": 5}], "meta": {"page": 1, "new": [1, 2]}}"#
        #expect(try Self.diff(old, new) == [
            "$.items[3].price: 10 → 12",
            #"$.items[4]: added {"id":5}"#,
            #"$.meta.old: removed "x""#,
            "$.meta.new: added [1,2]",
        ])
    }

    @Test("type changes, odd keys in brackets, the root")
    func oddities() throws {
        #expect(try Self.diff(#"{"a": "10"}"#, #"{"a": 10}"#) == [#"$.a: "10" → 10"#])
        #expect(try Self.diff(#"{"content-type": "a", "it's": 1, "1st": 1}"#, #"{"content-type": "b", "it's": 2, "1st": 2}"#) == [
            #"$['content-type']: "a" → "b""#, #"$['it\'s']: 1 → 2"#, "$['1st']: 1 → 2",
        ])
        #expect(try Self.diff("[1]", #"{"a": 1}"#) == [#"$: [1] → {"a":1}"#])
        #expect(try Self.diff("null", "false") == ["$: null → false"])
    }

    @Test("long values are cut; control characters stay escaped")
    func longValues() throws {
        let long = String(repeating: "x", count: 500)
        let lines = try Self.diff(#"{"a": "short"}"#, "{\"a\": \"\(long)\"}")
        #expect(lines.count == 1)
        #expect(lines[0].hasSuffix("…"))
        #expect(lines[0].count == #"$.a: "short" → "#.count + JSONDiff.valueLimit)
        #expect(try Self.diff(#"{"a": "x"}"#, #"{"a": "\u001b[31m"}"#) == [#"$.a: "x" → "\u001b[31m""#])
    }

    @Test("a redacted value is never compared, so the other side's secret is never shown")
    func redacted() throws {
        #expect(try Self.diff(#"{"token": "[REDACTED]", "n": 1}"#, #"{"token": "s3cr3t", "n": 2}"#) == ["$.n: 1 → 2"])
        #expect(try Self.diff(#"{"n": 1}"#, #"{"token": "[REDACTED]", "n": 1}"#) == [])
        #expect(try Self.diff(#"{"token": "[REDACTED]"}"#, #"{}"#) == [])
    }
}
