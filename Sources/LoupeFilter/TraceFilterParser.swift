import Foundation
import LoupeTrace

/// A recursive-descent parser for ``TraceFilter`` text; positions count `Character`s from 1.
///
/// ```
/// filter  := or END
/// or      := and ('|' and)*
/// and     := unary (['&'] unary)*          adjacent terms are joined by &
/// unary   := '!' unary | '(' or ')' | term
/// term    := '~' NAME [argument] | argument   a bare argument means ~u argument
/// argument:= '"…"' | "'…'" | run of characters up to whitespace ( ) & |
/// ```
package struct TraceFilterParser {
    /// Every `~name`, in the order error messages list them (and the `:` prompt completes them).
    package static let termNames = ["m", "c", "d", "u", "h", "b", "op", "dur", "att", "cb", "e", "replay", "src", "rule", "served", "grpc", "gs",
                                    "bq", "bs", "any", "msg", "err", "drift", "since", "until"]
    /// Filters longer than this are refused before anything else is read.
    static let maxLength = 10_000
    /// More terms than this are refused. Realistic filters have a handful; the bound keeps every filter inside
    /// SQLite's limits (expression depth 1000, bound variables 999 on old builds) and its memory small.
    static let maxTerms = 500
    /// Nesting of `(` and `!` beyond this is refused: no input can exhaust the stack of the code that walks
    /// filters, or SQLite's parser stack (the SQL a filter becomes nests as deep as its brackets).
    static let maxDepth = 16

    private let chars: [Character]
    /// What `~since 10m` counts back from, and the zone of a time written without one.
    private let now: Date
    private let timeZone: TimeZone
    private var offset = 0
    private var depth = 0
    private var terms = 0

    init(_ text: String, now: Date = Date(), timeZone: TimeZone = .current) {
        chars = Array(text)
        self.now = now
        self.timeZone = timeZone
    }

    mutating func parse() throws(TraceFilterError) -> TraceFilter {
        guard chars.count <= Self.maxLength else {
            throw .problem("the filter is longer than \(Self.maxLength) characters",
                           expected: "a filter of at most \(Self.maxLength) characters", at: Self.maxLength)
        }
        let filter = try parseOr(after: nil)
        skipSpaces()
        // `and` stops only before `)`, `|` or the end, and `or` consumes every `|`: only a `)` can be left.
        if offset < chars.count {
            throw .problem("unexpected ) with no ( before it", expected: "&, | or the end", at: offset)
        }
        return filter
    }

    // MARK: Expressions

    private mutating func parseOr(after context: String?) throws(TraceFilterError) -> TraceFilter {
        var left = try parseAnd(after: context)
        while true {
            skipSpaces()
            guard peek == "|" else { return left }
            offset += 1
            left = .or(left, try parseAnd(after: "|"))
        }
    }

    private mutating func parseAnd(after context: String?) throws(TraceFilterError) -> TraceFilter {
        var left = try parseUnary(after: context)
        while true {
            skipSpaces()
            guard let next = peek, next != ")", next != "|" else { return left }
            if next == "&" {
                offset += 1
                left = .and(left, try parseUnary(after: "&"))
            } else {
                left = .and(left, try parseUnary(after: nil))
            }
        }
    }

    private mutating func parseUnary(after context: String?) throws(TraceFilterError) -> TraceFilter {
        skipSpaces()
        guard let next = peek, next != ")", next != "|", next != "&" else {
            let what = context.map { "a filter term after \($0)" }
                ?? "a filter term such as ~c 5xx, ~m GET or a word to find in URLs"
            throw .expected(what, at: offset)
        }
        switch next {
        case "!":
            offset += 1
            try enter()
            defer { depth -= 1 }
            return .not(try parseUnary(after: "!"))
        case "(":
            let open = offset
            offset += 1
            try enter()
            defer { depth -= 1 }
            let inner = try parseOr(after: "(")
            skipSpaces()
            guard peek == ")" else { throw .expected(") to close the ( at \(open + 1)", at: offset) }
            offset += 1
            return inner
        case "~":
            try countTerm()
            return try parseTerm()
        default:
            try countTerm()
            let word = try argument(wanting: "a word to find in URLs")
            return .url(try pattern(word, ignoresCase: true, term: "a bare word"))
        }
    }

    private mutating func enter() throws(TraceFilterError) {
        depth += 1
        if depth > Self.maxDepth {
            throw .problem("( and ! nested more than \(Self.maxDepth) levels deep", expected: "fewer nested ( or !",
                           at: offset - 1)
        }
    }

    private mutating func countTerm() throws(TraceFilterError) {
        terms += 1
        if terms > Self.maxTerms {
            throw .problem("more than \(Self.maxTerms) terms in one filter", expected: "at most \(Self.maxTerms) terms",
                           at: offset)
        }
    }

    // MARK: Terms

    private mutating func parseTerm() throws(TraceFilterError) -> TraceFilter {
        let start = offset
        offset += 1  // the ~
        var name = ""
        while let next = peek, next.isASCII, next.isLetter {
            name.append(next)
            offset += 1
        }
        guard !name.isEmpty else { throw .expected("a filter name after ~, such as ~c or ~m", at: offset) }
        switch name {
        case "m": return .method(try method())
        case "c": return .status(try status())
        case "d":
            let host = try argument(wanting: "a host like example.com after ~d")
            return .host(FilterText.asciiLowercased(host.text))
        case "u": return .url(try pattern(argument(wanting: "a regular expression after ~u"), ignoresCase: true, term: "~u"))
        case "h": return .header(try pattern(argument(wanting: "a regular expression after ~h"), ignoresCase: true, term: "~h"))
        case "b": return .body(try pattern(argument(wanting: "a regular expression after ~b"), ignoresCase: false, term: "~b"))
        case "bq": return .requestBody(try pattern(argument(wanting: "a regular expression after ~bq"), ignoresCase: false, term: "~bq"))
        case "bs": return .responseBody(try pattern(argument(wanting: "a regular expression after ~bs"), ignoresCase: false, term: "~bs"))
        case "any":
            // Any field a person searches: `~u R | ~h R | ~b R | ~msg R | ~err R`, each with its own case rule, so it
            // means exactly what those terms mean and prints as them.
            let word = try argument(wanting: "a regular expression after ~any")
            let caseless = try pattern(word, ignoresCase: true, term: "~any")
            let exact = try pattern(word, ignoresCase: false, term: "~any")
            return .or(.or(.or(.or(.url(caseless), .header(caseless)), .body(exact)), .message(exact)), .errorText(caseless))
        case "msg": return .message(try pattern(argument(wanting: "a regular expression after ~msg"), ignoresCase: false, term: "~msg"))
        case "err": return .errorText(try pattern(argument(wanting: "a regular expression after ~err"), ignoresCase: true, term: "~err"))
        case "op": return .operation(try argument(wanting: "an operation name after ~op").text)
        case "gql":
            // The recorder names GraphQL requests `query NAME`, `mutation NAME`…: any of them by the operation's name.
            let name = try argument(wanting: "a GraphQL operation name after ~gql").text
            return ["mutation", "subscription", "persisted"].reduce(.operation("query " + name)) { .or($0, .operation($1 + " " + name)) }
        case "dur": return .duration(try durationComparison())
        case "att": return .attempts(try attemptsComparison())
        case "cb": return .circuit(try circuit())
        case "e": return .error
        case "replay": return .replay
        case "served": return .served
        case "src":
            let app = try argument(wanting: "an app name after ~src")
            return .source(FilterText.asciiLowercased(app.text))
        case "rule": return try rule()
        case "drift": return try drift()
        case "since": return .since(try instant(after: "~since"))
        case "until": return .until(try instant(after: "~until"))
        case "grpc": return .grpc(status: nil)
        case "gs":
            let word = try argument(wanting: "a gRPC status like UNAVAILABLE or 14 after ~gs")
            guard let code = GRPCStatusName.code(word.text) else {
                throw .expected("a gRPC status: a name like UNAVAILABLE or a number from 0 to 16", at: word.offset)
            }
            return .grpc(status: code)
        default: throw .unknownFilter(name, at: start)
        }
    }

    /// `~drift [kind]`: the kind is optional, as `~rule`'s name is (`~drift`, `~drift status`, `~drift response-body.type`).
    @inline(never)
    private mutating func drift() throws(TraceFilterError) -> TraceFilter {
        guard let next = nextSignificant, !"&|)!~".contains(next) else { return .drift(nil) }
        return .drift(try argument(wanting: "a kind of drift after ~drift").text)
    }

    /// `~rule [name]`: the name is optional; `~rule` alone, or before an operator, a bracket or another term, means
    /// any rule. Out of line, so the recursive descent's frames do not grow with it.
    @inline(never)
    private mutating func rule() throws(TraceFilterError) -> TraceFilter {
        guard let next = nextSignificant, !"&|)!~".contains(next) else { return .rule(nil) }
        let rule = try argument(wanting: "a rule name after ~rule")
        return .rule(FilterText.asciiLowercased(rule.text))
    }

    /// The time of `~since`/`~until`, read once (``FilterInstant/read(_:now:timeZone:)``) and range-checked there.
    private mutating func instant(after term: String) throws(TraceFilterError) -> FilterInstant {
        let wanted = FilterInstant.expected + " after " + term
        let word = try argument(wanting: wanted)
        guard let instant = FilterInstant.read(word.text, now: now, timeZone: timeZone) else { throw .expected(wanted, at: word.offset) }
        return instant
    }

    private mutating func method() throws(TraceFilterError) -> String {
        let wanted = "a method like GET or POST after ~m"
        let word = try argument(wanting: wanted)
        guard word.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .expected(wanted, at: word.offset)
        }
        return word.text.uppercased()
    }

    private mutating func status() throws(TraceFilterError) -> ClosedRange<Int> {
        let wanted = "a status like 503 or 5xx after ~c"
        let word = try argument(wanting: wanted)
        let text = word.text.lowercased()
        if text.count == 3, text.hasSuffix("xx"), let digit = text.first?.wholeNumberValue, digit >= 1, text.first!.isASCII {
            return (digit * 100)...(digit * 100 + 99)
        }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(Self.code)
        switch parts.count {
        case 1:
            if let code = parts[0] { return code...code }
        case 2:
            if let low = parts[0], let high = parts[1] {
                guard low <= high else { throw .expected("a range with the lower code first, like 500-504", at: word.offset) }
                return low...high
            }
        default: break
        }
        throw .expected(wanted, at: word.offset)
    }

    /// One to three ASCII digits.
    private static func code(_ text: Substring) -> Int? {
        guard (1...3).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private mutating func durationComparison() throws(TraceFilterError) -> TraceFilter.Comparison<Double> {
        let wanted = "a duration like >500ms or <=2s after ~dur"
        let (op, word) = try comparison(wanting: wanted)
        let number = String(word.text.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "+" || $0 == "-") })
        let unitStart = word.offset + number.count
        guard Self.isDecimal(number), let value = Double(number), value.isFinite else { throw .expected(wanted, at: word.offset) }
        switch word.text.dropFirst(number.count).lowercased() {
        case "ms": return .init(op, value / 1000)
        case "s": return .init(op, value)
        default: throw .expected("a unit, ms or s, after the number", at: unitStart)
        }
    }

    /// `12`, `1.5`, `1e-3`, `2.5E+2`; no sign, no bare dot.
    static func isDecimal(_ text: String) -> Bool {
        var rest = Substring(text)
        let whole = rest.prefix { $0.isNumber }
        guard !whole.isEmpty else { return false }
        rest = rest.dropFirst(whole.count)
        if rest.first == "." {
            let fraction = rest.dropFirst().prefix { $0.isNumber }
            guard !fraction.isEmpty else { return false }
            rest = rest.dropFirst(1 + fraction.count)
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            let exponent = rest.prefix { $0.isNumber }
            guard !exponent.isEmpty else { return false }
            rest = rest.dropFirst(exponent.count)
        }
        return rest.isEmpty
    }

    private mutating func attemptsComparison() throws(TraceFilterError) -> TraceFilter.Comparison<Int> {
        let wanted = "a count like >1 or 3 after ~att"
        let (op, word) = try comparison(wanting: wanted)
        guard word.text.count <= 9, word.text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(word.text) else {
            throw .expected(wanted, at: word.offset)
        }
        return .init(op, value)
    }

    /// An optional operator (`=` when absent), then a value; spaces may separate them (`~dur > 500ms`).
    private mutating func comparison(wanting wanted: String) throws(TraceFilterError) -> (TraceFilter.ComparisonOperator, Argument) {
        skipSpaces()
        let opStart = offset
        var text = ""
        while let next = peek, next == "<" || next == ">" || next == "=" {
            text.append(next)
            offset += 1
        }
        let op: TraceFilter.ComparisonOperator
        switch text {
        case "", "=", "==": op = .equal
        case "<": op = .lessThan
        case "<=": op = .lessThanOrEqual
        case ">": op = .greaterThan
        case ">=": op = .greaterThanOrEqual
        default: throw .expected(wanted, at: opStart)
        }
        return (op, try argument(wanting: wanted))
    }

    private mutating func circuit() throws(TraceFilterError) -> TraceFilter.CircuitMatch {
        let wanted = "open, half-open, closed, forced-open, disabled or short-circuited after ~cb"
        let word = try argument(wanting: wanted)
        let text = word.text.lowercased().replacingOccurrences(of: "_", with: "-")
        // Old and JSON spellings read as the glossary's words (Documentation/Glossary.md).
        let normal = ["halfopen": "half-open", "forcedopen": "forced-open", "shortcircuited": "short-circuited"][text] ?? text
        guard let match = TraceFilter.CircuitMatch(rawValue: normal) else { throw .expected(wanted, at: word.offset) }
        return match
    }

    private func pattern(_ word: Argument, ignoresCase: Bool, term: String) throws(TraceFilterError) -> TextPattern {
        do {
            return try TextPattern(word.text, ignoresCase: ignoresCase)
        } catch {
            throw .problem("invalid regular expression after \(term): \(error.reason)", expected: "a valid regular expression", at: word.offset)
        }
    }

    // MARK: Characters

    struct Argument {
        var text: String
        /// 0-based offset of its first character (the quote, when quoted).
        var offset: Int
    }

    /// A quoted string, or the characters up to whitespace, a parenthesis, `&` or `|`. Never empty.
    private mutating func argument(wanting wanted: String) throws(TraceFilterError) -> Argument {
        skipSpaces()
        let start = offset
        guard let first = peek, !TraceFilterPrinter.endsArgument(first) else { throw .expected(wanted, at: offset) }
        if first == "\"" || first == "'" {
            let text = try quoted(first)
            guard !text.isEmpty else { throw .expected(wanted, at: start) }
            return Argument(text: text, offset: start)
        }
        var text = ""
        while let next = peek, !TraceFilterPrinter.endsArgument(next) {
            text.append(next)
            offset += 1
        }
        return Argument(text: text, offset: start)
    }

    /// Reads `"…"` or `'…'`; a backslash escapes the quote and itself, and stays before anything else (`\d`).
    private mutating func quoted(_ quote: Character) throws(TraceFilterError) -> String {
        let open = offset
        offset += 1
        var text = ""
        while let next = peek {
            offset += 1
            if next == quote { return text }
            if next == "\\", let escaped = peek, escaped == quote || escaped == "\\" {
                text.append(escaped)
                offset += 1
            } else {
                text.append(next)
            }
        }
        throw .expected("a closing \(quote) for the quote at \(open + 1)", at: offset)
    }

    private var peek: Character? { offset < chars.count ? chars[offset] : nil }

    /// The next character that is not whitespace, without moving.
    private var nextSignificant: Character? {
        var index = offset
        while index < chars.count, chars[index].isWhitespace { index += 1 }
        return index < chars.count ? chars[index] : nil
    }

    private mutating func skipSpaces() {
        while let next = peek, next.isWhitespace { offset += 1 }
    }
}
