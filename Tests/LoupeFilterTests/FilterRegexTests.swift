import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import PropertyBased
import Testing
@testable import LoupeTestSupport

/// The filter regex engine: linear time whatever the pattern, and ICU's answers wherever it accepts a pattern.
@Suite("Filter regex engine")
struct FilterRegexTests {
    static func pattern(_ source: String, ignoresCase: Bool = false) throws -> TextPattern {
        try TextPattern(source, ignoresCase: ignoresCase)
    }

    @Test("catastrophic backtracking patterns answer at once, in memory and in SQLite", .timeLimit(.minutes(5)))
    func catastrophicPatterns() throws {
        let evil = String(repeating: "a", count: 40) + "!"
        for source in ["(a+)+$", "(a|a)+$", "(a*)*b", "(a|aa)+$", "^(a+)+b", "(.*a){12}$", "(\\w+\\s?)+$"] {
            #expect(try Self.pattern(source).matches(evil) == false, "\(source)")
        }
        // A megabyte body, many states: still one pass.
        let body = String(repeating: "ab", count: 500_000)
        #expect(try Self.pattern("(a|b)*a(a|b){12}c").matches(body) == false)
        #expect(try Self.pattern("(x+x+)+y").matches(String(repeating: "x", count: 100_000)) == false)

        // The same through the store: the SQL function runs the same engine.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        var exchange = TraceMatchingFixtures.exchange
        exchange.responseBody = TraceBody(data: Data(evil.utf8), size: evil.utf8.count, isTruncated: false)
        try store.write([exchange])
        #expect(try store.summaries(matching: TraceFilter.parse("~b '(a+)+$'"), limit: 10).isEmpty)
        #expect(try store.summaries(matching: TraceFilter.parse("~b '(a+)+!$'"), limit: 10).count == 1)
    }

    @Test("what makes regexes slow or changes their meaning is refused with a reason", arguments: [
        ("(a)\\1", "back-references"), ("(?<n>a)\\k<n>", "back-references"), ("a(?=b)", "look-ahead"),
        ("a(?!b)", "look-ahead"), ("(?<=a)b", "look-behind"), ("(?<!a)b", "look-behind"), ("(?>a+)b", "atomic"),
        ("a++b", "possessive"), ("a{2,1001}", "above 1000"), ("(a{1000}){3}", "too large"), ("\\p{L}", "not supported"),
        ("[[:alpha:]]", "nested"), ("[a&&b]", "set operations"), ("(?x)a", "flag x"), ("(?-m)^a", "multi-line"),
        ("a**", "nothing to repeat"), ("{", "escaped"), ("a{2", "repetition"), ("[a", "missing ]"), ("(a", "missing )"),
        (String(repeating: "(", count: 200) + "a" + String(repeating: ")", count: 200), "nested more than"),
    ])
    func refused(source: String, reason: String) {
        let error = #expect(throws: TextPattern.Invalid.self) { try Self.pattern(source) }
        #expect(error?.reason.contains(reason) == true, "\(source): \(String(describing: error))")
    }

    @Test("ICU's meaning is kept", arguments: [
        // Lines: ^ and $ at every line, \r\n counts as one terminator, ^ never at the very end.
        ("^b", "a\nb", true), ("a$", "a\r\nb", true), ("\\r$", "a\r\nb", false), ("^$", "a\n", false), ("^$", "", true),
        ("a$", "a\u{2028}", true), ("\\Aa", "\na", false), ("a\\z", "a\n", false), ("^a", "\u{85}a", true),
        // `.` stops at line terminators; (?s) takes them, and \r\n as one.
        ("a.b", "a\nb", false), ("a.b", "a\u{0B}b", false), ("(?s)a.b", "a\nb", true), ("(?s)a.b", "a\r\nb", true),
        ("(?s)a..b", "a\r\nb", false),
        // Classes as ICU defines them.
        ("\\d", "٣", true), ("\\w", "é", true), ("\\w", "\u{301}", true), ("\\w", "²", false), ("\\s", "\u{A0}", true),
        ("\\s", "\u{180E}", false), ("\\h", "\u{2000}", true), ("\\v", "\u{85}", true), ("[\\d-z]", "-", true),
        ("[]a]", "]", true), ("[^]a]", "b", true), ("[a-]", "-", true), ("[a-c-e]", "-", true), ("[^\\n]", "\r", true),
        // Word boundaries look through combining marks and format characters.
        ("\\bb", "a\u{301}b", false), ("a\\b", "a\u{301}", false), ("\\bx", "\u{301}x", true), ("x\\B", "x\u{301}", true),
        ("\\b", "", false), ("\\B", "", true),
        // Case-insensitive matching folds one-to-one mappings, also through the Kelvin sign and long s.
        ("(?i)k", "\u{212A}", true), ("(?i)[a-z]", "\u{212A}", true), ("(?i)σ", "ς", true), ("(?i)ǅ", "Ǆ", true),
        ("(?i)s", "ſ", true), ("(?i)[^a]", "A", false), ("(?i:A)b", "aB", false), ("(a(?i)b|c)", "C", true),
        // Quoting, escapes, lazy quantifiers, named groups, comments.
        ("\\Qa.b\\E", "a.b", true), ("\\Qa.b\\E", "axb", false), ("a\\Qbc\\E+", "abcc", true), ("\\x41\\x{42}\\u0043", "ABC", true),
        ("a{2,3}?", "aa", true), ("(?<name>a)(?:b)(?#note)", "ab", true), ("\\Q", "x", true),
    ])
    func icuMeaning(source: String, text: String, expected: Bool) throws {
        #expect(try Self.pattern(source).matches(text) == expected, "\(source) on \(text.debugDescription)")
    }

    // MARK: Against NSRegularExpression

    static let literals = ["a", "b", "c", "A", "B", "é", "_", "1", " ", "\\.", "\\n", "\\t", "-", "k", "s", "\\r", "x",
                           "\\x41", "\\u00e9", "\\Q.*\\E", "]", "\\-", "\\]", "\\[", "\\{", "\\}", "\\(", "\\|", "\\*", "\\\\"]
    static let classes = ["\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\h", "\\v", "\\H", "\\V", "."]
    static let anchors = ["^", "$", "\\b", "\\B", "\\A", "\\z"]
    static let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{0,1}", "{1,}", "{1,3}", "{0}", "*?", "+?", "??", "{2,}?"]
    static let texts = ["a", "b", "c", "A", "B", "é", "É", "\u{301}", "_", "1", "٣", " ", "\n", "\r", "\t", ".", "-", "K",
                        "k", "\u{212A}", "s", "S", "ſ", "x", "\u{200C}", "\u{85}", "\u{2028}", "ab", "abc", "[", "]", "*"]

    /// A random pattern in the supported syntax, from `random`.
    static func randomPattern(_ random: inout SeededGenerator, depth: Int = 0, names: inout Int) -> String {
        func pick(_ options: [String]) -> String { options[Int(random.next() % UInt64(options.count))] }
        func roll(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        var branches: [String] = []
        for _ in 0..<roll(1...(depth > 1 ? 1 : 3)) {
            var branch = ""
            for _ in 0..<roll(0...4) {
                switch roll(0...9) {
                case 0...3: branch += pick(literals) + pick(quantifiers)
                case 4: branch += pick(classes) + pick(quantifiers)
                case 5:
                    let items = ["a-c", "b", "\\d", "\\w", "\\s", "A-Z", "é", "_", "-", ".", "x-z", "\\n", "^", "$", "\\]", "k"]
                    branch += (roll(0...3) == 0 ? "[^" : "[") + (0..<roll(1...3)).map { _ in pick(items) }.joined() + "]"
                        + pick(quantifiers)
                case 6: branch += pick(anchors)
                case 7 where depth < 2:
                    names += 1
                    let open = pick(["(", "(?:", "(?i:", "(?<n\(names)>", "(?s:", "(?-i:"])
                    branch += open + randomPattern(&random, depth: depth + 1, names: &names) + ")" + pick(quantifiers)
                case 8: branch += pick(["(?i)", "(?s)", "(?m)", "(?#c)"])
                default: branch += pick(literals)
                }
            }
            branches.append(branch)
        }
        return branches.joined(separator: "|")
    }

    /// ICU stops a loop whose body matched nothing in a way that can miss matches (`(?:x{0}|é)+?$` does not
    /// find "é"); such patterns are left out of the comparison.
    static func hasEmptyLoop(_ node: RegexNode) -> Bool {
        func nullable(_ node: RegexNode) -> Bool {
            switch node {
            case .empty, .assertion: true
            case .set, .anyIncludingNewlines: false
            case .concatenation(let items): items.allSatisfy(nullable)
            case .alternation(let items): items.contains(where: nullable)
            case .repetition(let inner, let min, _): min == 0 || nullable(inner)
            }
        }
        switch node {
        case .empty, .assertion, .set, .anyIncludingNewlines: return false
        case .concatenation(let items), .alternation(let items): return items.contains(where: hasEmptyLoop)
        case .repetition(let inner, _, let max): return ((max ?? 2) > 1 && nullable(inner)) || hasEmptyLoop(inner)
        }
    }

    static func icu(_ source: String, ignoresCase: Bool) -> NSRegularExpression? {
        var options: NSRegularExpression.Options = [.anchorsMatchLines]
        if ignoresCase { options.insert(.caseInsensitive) }
        return try? NSRegularExpression(pattern: source, options: options)
    }

    @Test("random patterns give NSRegularExpression's answers on random texts")
    func agreesWithICU() async {
        await propertyCheck(count: 1500, input: Gen.uint64()) { seed in
            var random = SeededGenerator(seed: seed)
            var names = 0
            let source = Self.randomPattern(&random, names: &names)
            guard !source.isEmpty else { return }  // ICU refuses an empty pattern
            let ignoresCase = random.next() % 2 == 0
            var parser = RegexParser(source)
            guard let node = try? parser.parse(caseless: ignoresCase), !Self.hasEmptyLoop(node) else { return }
            let mine = try #require(try? TextPattern(source, ignoresCase: ignoresCase), "\(source)")
            let icu = try #require(Self.icu(source, ignoresCase: ignoresCase), "ICU refuses \(source)")
            for _ in 0..<12 {
                let text = (0..<Int(random.next() % 10)).map { _ in Self.texts[Int(random.next() % UInt64(Self.texts.count))] }.joined()
                // ICU lets a pattern that starts with ^ match between \r and \n only when ^ is not first.
                if text.contains("\r\n"), source.contains("^") { continue }
                let expected = icu.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
                #expect(mine.matches(text) == expected, "\(source.debugDescription) on \(text.debugDescription)")
            }
        }
    }

    @Test("whatever the engine accepts, ICU accepts too, and they agree")
    func acceptsOnlyWhatICUAccepts() async {
        let pieces = Array("ab()[]{}|*+?.^$\\-,:=!<>#idswbBzAQEx0123459 ").map(String.init)
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).map { $0 ?? "" }.array(of: 1...8)) { parts in
            let source = parts.joined()
            guard let mine = try? TextPattern(source, ignoresCase: false) else { return }
            let icu = try #require(Self.icu(source, ignoresCase: false), "ICU refuses \(source.debugDescription)")
            var parser = RegexParser(source)
            guard let node = try? parser.parse(caseless: false), !Self.hasEmptyLoop(node) else { return }
            for text in ["", "a", "ab", "b a", "a\nb", "(a)", "a{1}", "!", "-", "ba", "aab"] {
                let expected = icu.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
                #expect(mine.matches(text) == expected, "\(source.debugDescription) on \(text.debugDescription)")
            }
        }
    }

    @Test("one pattern is safe to use from many tasks at once")
    func concurrentUse() async throws {
        let pattern = try Self.pattern("(a|b)*a(a|b){6}c|secret\\d+")
        let texts = (0..<64).map { $0.isMultiple(of: 3) ? "xx secret\($0) yy" : String(repeating: "ab", count: 200 + $0) }
        let results = await withTaskGroup(of: Bool.self) { group in
            for text in texts { group.addTask { pattern.matches(text) } }
            return await group.reduce(into: 0) { count, matched in if matched { count += 1 } }
        }
        #expect(results == texts.filter { $0.contains("secret") }.count)
    }
}
