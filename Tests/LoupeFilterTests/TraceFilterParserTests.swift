import Foundation
@testable import LoupeTrace
@testable import LoupeFilter
import Testing

@Suite("TraceFilter parsing")
struct TraceFilterParserTests {
    private func parse(_ text: String) throws -> TraceFilter { try TraceFilter.parse(text) }
    private func url(_ source: String) throws -> TraceFilter { .url(try TextPattern(source, ignoresCase: true)) }

    @Test("every term parses to its case", arguments: [
        ("~m post", TraceFilter.method("POST")),
        ("~c 503", .status(503...503)),
        ("~c 5xx", .status(500...599)),
        ("~c 4XX", .status(400...499)),
        ("~c 500-504", .status(500...504)),
        ("~d Example.COM", .host("example.com")),
        ("~op createUser", .operation("createUser")),
        ("~dur >500ms", .duration(.init(.greaterThan, 0.5))),
        ("~dur >=2s", .duration(.init(.greaterThanOrEqual, 2))),
        ("~dur < 1.5s", .duration(.init(.lessThan, 1.5))),
        ("~dur<=250ms", .duration(.init(.lessThanOrEqual, 0.25))),
        ("~dur =1e-3s", .duration(.init(.equal, 0.001))),
        ("~att >1", .attempts(.init(.greaterThan, 1))),
        ("~att 3", .attempts(.init(.equal, 3))),
        ("~att ==2", .attempts(.init(.equal, 2))),
        ("~cb open", .circuit(.open)),
        ("~cb half-open", .circuit(.halfOpen)),
        ("~cb Half_Open", .circuit(.halfOpen)),
        ("~cb closed", .circuit(.closed)),
        ("~cb forced-open", .circuit(.forcedOpen)),
        ("~e", .error),
        ("~replay", .replay),
    ])
    func terms(text: String, expected: TraceFilter) throws {
        #expect(try parse(text) == expected)
    }

    @Test("regex terms compile with their case rules; bare words and quotes are ~u")
    func patterns() throws {
        #expect(try parse("~u /v1/users") == url("/v1/users"))
        #expect(try parse("users") == url("users"))
        #expect(try parse(#""a b(c)""#) == url("a b(c)"))
        #expect(try parse(#"~h "^content-type: .*json""#) == .header(try TextPattern("^content-type: .*json", ignoresCase: true)))
        #expect(try parse(#"~b 'it\'s \d+'"#) == .body(try TextPattern(#"it's \d+"#, ignoresCase: false)))
        #expect(try parse(#"~u "a\\b\"c""#) == url(#"a\b"c"#))
    }

    @Test("! binds tighter than &, which binds tighter than |")
    func precedence() throws {
        let (a, b, c) = (TraceFilter.error, TraceFilter.replay, TraceFilter.method("GET"))
        #expect(try parse("~e | ~replay & ~m GET") == .or(a, .and(b, c)))
        #expect(try parse("~e & ~replay | ~m GET") == .or(.and(a, b), c))
        #expect(try parse("!~e & ~replay") == .and(.not(a), b))
        #expect(try parse("!~e | !~replay") == .or(.not(a), .not(b)))
        #expect(try parse("~e | ~replay | ~m GET") == .or(.or(a, b), c))
        #expect(try parse("~e & ~replay & ~m GET") == .and(.and(a, b), c))
        #expect(try parse("!!~e") == .not(.not(a)))
    }

    @Test("parentheses group, and adjacent terms are joined by &")
    func groupingAndImplicitAnd() throws {
        let (a, b, c) = (TraceFilter.error, TraceFilter.replay, TraceFilter.method("GET"))
        #expect(try parse("(~e | ~replay) & ~m GET") == .and(.or(a, b), c))
        #expect(try parse("!(~e | ~replay)") == .not(.or(a, b)))
        #expect(try parse("  ( ( ~e ) )  ") == a)
        #expect(try parse("~e ~replay ~m GET") == .and(.and(a, b), c))
        #expect(try parse("~e ~replay | ~m GET") == .or(.and(a, b), c))
        #expect(try parse("~c 503|~c 504") == .or(.status(503...503), .status(504...504)))
        #expect(try parse("~d example.com&~m post") == .and(.host("example.com"), .method("POST")))
        #expect(try parse("(~e)(~replay)") == .and(a, b))
    }

    @Test("errors name the 1-based position and what was expected", arguments: [
        ("~c", 3, "at 3: expected a status like 503 or 5xx after ~c"),
        ("~c foo", 4, "at 4: expected a status like 503 or 5xx after ~c"),
        ("~c 504-500", 4, "at 4: expected a range with the lower code first, like 500-504"),
        ("~m", 3, "at 3: expected a method like GET or POST after ~m"),
        ("~m G/T", 4, "at 4: expected a method like GET or POST after ~m"),
        ("~dur >fast", 7, "at 7: expected a duration like >500ms or <=2s after ~dur"),
        ("~dur >5m", 8, "at 8: expected a unit, ms or s, after the number"),
        ("~dur >5", 8, "at 8: expected a unit, ms or s, after the number"),
        ("~dur >>5s", 6, "at 6: expected a duration like >500ms or <=2s after ~dur"),
        ("~att x", 6, "at 6: expected a count like >1 or 3 after ~att"),
        ("~cb ajar", 5, "at 5: expected open, half-open, closed, forced-open, disabled or short-circuited after ~cb"),
        ("", 1, "at 1: expected a filter term such as ~c 5xx, ~m GET or a word to find in URLs"),
        ("   ", 4, "at 4: expected a filter term such as ~c 5xx, ~m GET or a word to find in URLs"),
        ("~e &", 5, "at 5: expected a filter term after &"),
        ("~e | | ~replay", 6, "at 6: expected a filter term after |"),
        ("!", 2, "at 2: expected a filter term after !"),
        ("(~e", 4, "at 4: expected ) to close the ( at 1"),
        ("()", 2, "at 2: expected a filter term after ("),
        ("~e)", 3, "at 3: unexpected ) with no ( before it"),
        ("~", 2, "at 2: expected a filter name after ~, such as ~c or ~m"),
        (#"~u "abc"#, 8, #"at 8: expected a closing " for the quote at 4"#),
        (#"~u """#, 4, "at 4: expected a regular expression after ~u"),
        ("~u (", 4, "at 4: expected a regular expression after ~u"),
    ])
    func errors(text: String, position: Int, message: String) {
        let error = #expect(throws: TraceFilterError.self) { try TraceFilter.parse(text) }
        #expect(error?.position == position)
        #expect(error?.description == message)
    }

    @Test("an unknown ~x names itself and its position, and lists the known terms")
    func unknownTerm() {
        let error = #expect(throws: TraceFilterError.self) { try TraceFilter.parse("~x 1") }
        #expect(error?.position == 1)
        #expect(error?.description.hasPrefix("unknown filter ~x at 1; expected one of ~m ~c ~d ~u ~h ~b ~op ~dur ~att ~cb ~e ~replay") == true)
        let later = #expect(throws: TraceFilterError.self) { try TraceFilter.parse("~e & ~status 5") }
        #expect(later?.description.hasPrefix("unknown filter ~status at 6") == true)
    }

    @Test("an invalid regex is a clear error at its argument")
    func invalidRegex() {
        let error = #expect(throws: TraceFilterError.self) { try TraceFilter.parse(#"~e & ~b "a[b""#) }
        #expect(error?.position == 9)
        #expect(error?.description == "at 9: invalid regular expression after ~b: missing ] to close this [ (at 2 in the expression)")
        let bare = #expect(throws: TraceFilterError.self) { try TraceFilter.parse("*oops") }
        #expect(bare?.description.hasPrefix("at 1: invalid regular expression after a bare word") == true)
    }

    @Test("nesting is limited instead of exhausting the stack")
    func deepNesting() {
        let error = #expect(throws: TraceFilterError.self) {
            try TraceFilter.parse(String(repeating: "(", count: 10_000) + "~e" + String(repeating: ")", count: 10_000))
        }
        #expect(error?.position == TraceFilterParser.maxLength + 1)
        let deep = #expect(throws: TraceFilterError.self) {
            try TraceFilter.parse(String(repeating: "(", count: 1000) + "~e" + String(repeating: ")", count: 1000))
        }
        #expect(deep?.position == TraceFilterParser.maxDepth + 1)
        #expect(throws: TraceFilterError.self) { try TraceFilter.parse(String(repeating: "!", count: 5_000) + "~e") }
        #expect(throws: Never.self) { try TraceFilter.parse(String(repeating: "!", count: TraceFilterParser.maxDepth) + "~e") }
    }

    @Test("the canonical text parses back to the same filter", arguments: [
        "~c 5xx | ~b secret", "!(~e | ~replay) & ~m GET", "~e & (~replay & ~cb open)", "~u \"a b\" ~h '^x-id: \\d+$'",
        "~dur >0.1s | ~dur <=100ms", "~c 500-504 ~c 200 ~att >=2", "!!~e", "~op \"GET /users?id=1\"", "(~e | ~replay) | ~e",
        "~d \"odd&host\"", "~u \"back\\\\slash\\\"quote\"", "~dur =1e-05s",
    ])
    func canonicalText(text: String) throws {
        let filter = try parse(text)
        #expect(try parse(filter.description) == filter, "\(filter.description)")
    }

    @Test("parseIfPresent treats nil and blank text as no filter")
    func blankIsNoFilter() throws {
        #expect(try TraceFilter.parseIfPresent(nil) == nil)
        #expect(try TraceFilter.parseIfPresent("  \t") == nil)
        #expect(try TraceFilter.parseIfPresent(" ~e ") == .error)
    }

    @Test("needsContent tells whether headers or bodies are needed")
    func needsContent() throws {
        #expect(try !parse("~c 5xx & !~m GET | users").needsContent)
        #expect(try parse("~c 5xx | !~b secret").needsContent)
        #expect(try parse("~h x-id").needsContent)
    }
}
