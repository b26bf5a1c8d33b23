/// Parses the regular expressions of filter terms (`~u ~h ~b`): the part of ICU's syntax that a linear-time
/// engine can run, with ICU's meaning.
///
/// Supported: literals and escaped punctuation; `\t \n \r \f \a \e \xHH \x{H…} \uHHHH \UHHHHHHHH`; `.`; classes
/// `[a-z0-9_]`, `[^…]` with the escapes below inside; `\d \D \w \W \s \S \h \H \v \V`; anchors `^ $` (per line),
/// `\A \z`, `\b \B`; groups `( )`, `(?: )`, `(?<name> )`; `|`; `* + ? {m} {m,} {m,n}` and their lazy forms (a
/// yes/no match does not depend on laziness); flags `(?i)`, `(?s)`, `(?m)` (always on) and `(?i: … )`; `\Q…\E`
/// and `(?# comments)`.
///
/// Refused, with a reason: back-references and look-around (they are what makes a regex take exponential time),
/// atomic groups and possessive quantifiers (they change which texts match), `{m,n}` above ``maxRepetition``,
/// nesting deeper than ``maxNesting``, and the rarer ICU escapes (`\p{…}`, `\N{…}`, `\X`, `\R`, `\Z`, `\G`, …).
struct RegexParser {
    /// The largest count `{m,n}` accepts (ICU's own limit is far higher; filters never need more).
    static let maxRepetition = 1000
    /// Groups nested deeper than this are refused, so no pattern can exhaust the stack of the parser or compiler.
    static let maxNesting = 100

    struct Flags {
        var caseless: Bool
        var dotAll = false
    }

    private let scalars: [Unicode.Scalar]
    private var offset = 0
    private var depth = 0

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    mutating func parse(caseless: Bool) throws(RegexSyntaxError) -> RegexNode {
        var flags = Flags(caseless: caseless)
        let node = try alternation(&flags)
        if offset < scalars.count { throw fail("unmatched ) with no ( before it") }
        return node
    }

    // MARK: Structure

    private mutating func alternation(_ flags: inout Flags) throws(RegexSyntaxError) -> RegexNode {
        var branches = [try concatenation(&flags)]
        while peek == "|" {
            offset += 1
            branches.append(try concatenation(&flags))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation(_ flags: inout Flags) throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let next = peek, next != "|", next != ")" {
            // Flag groups and comments stand for nothing, so a quantifier after them has nothing to repeat.
            guard let (atom, bare) = try atom(&flags, into: &items) else { continue }
            items.append(try quantified(atom, bare: bare))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// The next thing a quantifier can apply to, and whether it is bare (not a group). `\Q…\E` appends all but
    /// its last scalar to `items`: a quantifier after it repeats only that one, as in ICU.
    private mutating func atom(_ flags: inout Flags, into items: inout [RegexNode])
        throws(RegexSyntaxError) -> (RegexNode, bare: Bool)? {
        let start = offset
        let scalar = scalars[offset]
        offset += 1
        switch scalar {
        case "(": return try group(&flags, open: start).map { ($0, false) }
        case "[": return (.set(try characterClass(flags, open: start)), true)
        case ".": return (flags.dotAll ? .anyIncludingNewlines : .set(.dot(matchesLineTerminators: false)), true)
        case "^": return (.assertion(.lineStart), true)
        case "$": return (.assertion(.lineEnd), true)
        case "\\" where peek == "Q":
            offset += 1
            var quoted = quote(flags)
            guard let last = quoted.popLast() else { return nil }
            items += quoted
            return (last, true)
        case "\\": return (try escape(flags), true)
        case "*", "+", "?": throw fail("nothing to repeat before \(scalar)", at: start)
        case "{", "}": throw fail("a literal \(scalar) must be escaped as \\\(scalar)", at: start)
        default: return (.set(.scalar(scalar, caseless: flags.caseless)), true)
        }
    }

    /// The scalars after `\Q`, up to `\E` or the end of the expression.
    private mutating func quote(_ flags: Flags) -> [RegexNode] {
        var items: [RegexNode] = []
        while offset < scalars.count {
            if scalars[offset] == "\\", offset + 1 < scalars.count, scalars[offset + 1] == "E" {
                offset += 2
                break
            }
            items.append(.set(.scalar(scalars[offset], caseless: flags.caseless)))
            offset += 1
        }
        return items
    }

    private mutating func quantified(_ atom: RegexNode, bare: Bool) throws(RegexSyntaxError) -> RegexNode {
        guard let next = peek, next == "*" || next == "+" || next == "?" || next == "{" else { return atom }
        let start = offset
        if bare, case .assertion = atom { throw fail("an anchor or \\b cannot be repeated", at: start) }
        offset += 1
        let bounds: (min: Int, max: Int?)
        switch next {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        default: bounds = try interval(open: start)
        }
        if peek == "?" {
            offset += 1  // lazy: the same texts match
        } else if peek == "+" {
            throw fail("possessive quantifiers (\(next)+) are not supported", at: offset)
        }
        if let again = peek, again == "*" || again == "+" || again == "?" || again == "{" {
            throw fail("nothing to repeat before \(again) (a quantifier cannot follow another)", at: offset)
        }
        return .repetition(atom, min: bounds.min, max: bounds.max)
    }

    /// `{m}`, `{m,}` or `{m,n}` after the `{`.
    private mutating func interval(open: Int) throws(RegexSyntaxError) -> (min: Int, max: Int?) {
        let malformed = "a repetition must be {m}, {m,} or {m,n} (write \\{ for a literal brace)"
        guard let low = number() else { throw fail(malformed, at: open) }
        var high: Int? = low
        if peek == "," {
            offset += 1
            high = number()
        }
        guard peek == "}" else { throw fail(malformed, at: open) }
        offset += 1
        guard low <= Self.maxRepetition, (high ?? 0) <= Self.maxRepetition else {
            throw fail("a repetition count above \(Self.maxRepetition) is not supported", at: open)
        }
        if let high, high < low { throw fail("the repetition {\(low),\(high)} has its bounds out of order", at: open) }
        return (low, high)
    }

    /// Decimal digits, or nil when there are none; large values saturate (they are refused as too large).
    private mutating func number() -> Int? {
        var value: Int?
        while let next = peek, let digit = Self.digit(next) {
            value = min((value ?? 0) * 10 + digit, 1_000_000)
            offset += 1
        }
        return value
    }

    private mutating func group(_ flags: inout Flags, open: Int) throws(RegexSyntaxError) -> RegexNode? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxNesting else { throw fail("groups nested more than \(Self.maxNesting) deep", at: open) }
        var inner = flags
        if peek == "?" {
            offset += 1
            guard let kind = peek else { throw fail("an unfinished (? group", at: open) }
            switch kind {
            case ":":
                offset += 1
            case "=", "!":
                throw fail("look-ahead (?\(kind) is not supported", at: open)
            case ">":
                throw fail("atomic groups (?> are not supported", at: open)
            case "#":
                while let next = peek, next != ")" { offset += 1 }
                guard peek == ")" else { throw fail("missing ) to close the comment (?#", at: open) }
                offset += 1
                return nil
            case "<":
                offset += 1
                if peek == "=" || peek == "!" { throw fail("look-behind (?<\(peek!) is not supported", at: open) }
                try groupName(open: open)
            default:
                // `(?flags)` changes the rest of the enclosing group; `(?flags: … )` only its own.
                let scoped = try flagGroup(&inner, open: open)
                if !scoped {
                    flags = inner
                    return nil
                }
            }
        }
        let node = try alternation(&inner)
        guard peek == ")" else { throw fail("missing ) to close this (", at: open) }
        offset += 1
        return node
    }

    /// A name of ASCII letters and digits, starting with a letter, then `>`.
    private mutating func groupName(open: Int) throws(RegexSyntaxError) {
        let start = offset
        while let next = peek, next.isASCII, next.properties.isAlphabetic || Self.digit(next) != nil {
            if offset == start, Self.digit(next) != nil { break }
            offset += 1
        }
        guard offset > start, peek == ">" else { throw fail("a group name must be letters and digits, then >", at: open) }
        offset += 1
    }

    /// Reads `i`, `m`, `s` (and `-` before the ones to turn off) up to `)` or `:`; returns whether it was `:`.
    private mutating func flagGroup(_ flags: inout Flags, open: Int) throws(RegexSyntaxError) -> Bool {
        var on = true
        var any = false
        while let next = peek {
            offset += 1
            switch next {
            case "i": flags.caseless = on
            case "s": flags.dotAll = on
            case "m":
                if !on { throw fail("turning multi-line mode off ((?-m)) is not supported", at: offset - 1) }
            case "-" where on:
                on = false
                continue
            case ")", ":":
                guard any else { throw fail("(? must be followed by :, flags, <name>, or #", at: open) }
                return next == ":"
            default:
                throw fail("the flag \(next) is not supported (only i, m and s)", at: offset - 1)
            }
            any = true
        }
        throw fail("missing ) to close this (", at: open)
    }

    // MARK: Escapes

    /// What an escape outside a class stands for.
    private mutating func escape(_ flags: Flags) throws(RegexSyntaxError) -> RegexNode {
        let start = offset - 1
        guard let letter = peek else { throw fail("a \\ at the end of the expression", at: start) }
        switch letter {
        case "b": offset += 1; return .assertion(.wordBoundary)
        case "B": offset += 1; return .assertion(.notWordBoundary)
        case "A": offset += 1; return .assertion(.textStart)
        case "z": offset += 1; return .assertion(.textEnd)
        default:
            switch try escapeElement(start: start, inClass: false) {
            case .scalar(let value):
                return .set(.scalar(Unicode.Scalar(value)!, caseless: flags.caseless))
            case .property(let property, let negated):
                return .set(RegexScalarSet([.property(property, negated: false)], negated: negated))
            }
        }
    }

    enum Element {
        case scalar(UInt32)
        case property(RegexScalarSet.Property, negated: Bool)
    }

    /// An escape that stands for a scalar or a class, after the `\` (at `start`).
    private mutating func escapeElement(start: Int, inClass: Bool) throws(RegexSyntaxError) -> Element {
        guard let letter = peek else { throw fail("a \\ at the end of the expression", at: start) }
        offset += 1
        switch letter {
        case "d", "D": return .property(.digit, negated: letter == "D")
        case "w", "W": return .property(.word, negated: letter == "W")
        case "s", "S": return .property(.space, negated: letter == "S")
        case "h", "H": return .property(.horizontalSpace, negated: letter == "H")
        case "v", "V": return .property(.lineTerminator, negated: letter == "V")
        case "t": return .scalar(0x09)
        case "n": return .scalar(0x0A)
        case "r": return .scalar(0x0D)
        case "f": return .scalar(0x0C)
        case "a": return .scalar(0x07)
        case "e": return .scalar(0x1B)
        case "x":
            if peek == "{" {
                offset += 1
                let value = try hex(digits: 1...8, start: start)
                guard peek == "}" else { throw fail("\\x{ must end with }", at: start) }
                offset += 1
                return try scalarValue(value, start: start)
            }
            return try scalarValue(try hex(digits: 1...2, start: start), start: start)
        case "u": return try scalarValue(try hex(digits: 4...4, start: start), start: start)
        case "U": return try scalarValue(try hex(digits: 8...8, start: start), start: start)
        case "1"..."9", "k":
            throw fail("back-references (\\\(letter)) are not supported", at: start)
        case "b" where inClass, "B" where inClass, "A" where inClass, "z" where inClass, "Q" where inClass:
            throw fail("\\\(letter) is not supported inside [ ]", at: start)
        default:
            if letter.isASCII, letter.properties.isAlphabetic || Self.digit(letter) != nil {
                throw fail("the escape \\\(letter) is not supported in filters", at: start)
            }
            return .scalar(letter.value)
        }
    }

    private mutating func hex(digits: ClosedRange<Int>, start: Int) throws(RegexSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while count < digits.upperBound, let next = peek, let digit = Self.hexDigit(next) {
            value = value * 16 + digit
            count += 1
            offset += 1
        }
        guard digits.contains(count) else { throw fail("a hexadecimal escape needs \(digits.lowerBound) digits", at: start) }
        return value
    }

    private func scalarValue(_ value: UInt32, start: Int) throws(RegexSyntaxError) -> Element {
        guard Unicode.Scalar(value) != nil else { throw fail("\\x{\(String(value, radix: 16))} is not a Unicode scalar", at: start) }
        return .scalar(value)
    }

    // MARK: Classes

    private mutating func characterClass(_ flags: Flags, open: Int) throws(RegexSyntaxError) -> RegexScalarSet {
        var negated = false
        if peek == "^" {
            negated = true
            offset += 1
        }
        var items: [RegexScalarSet.Item] = []
        var first = true
        while true {
            guard let next = peek else { throw fail("missing ] to close this [", at: open) }
            if next == "]", !first {
                offset += 1
                break
            }
            first = false
            if (next == "&" || next == "-"), peek(1) == next {
                throw fail("set operations (\(next)\(next)) inside [ ] are not supported", at: offset)
            }
            let element = try classElement()
            guard case .scalar(let low) = element else {
                if case .property(let property, let negated) = element { items.append(.property(property, negated: negated)) }
                continue
            }
            // `a-z` is a range; a `-` first, last or after a range is itself.
            if peek == "-", let after = peek(1), after != "]" {
                let dash = offset
                offset += 1
                if peek == "-" { throw fail("set operations (--) inside [ ] are not supported", at: dash) }
                guard case .scalar(let high) = try classElement() else {
                    throw fail("a range in [ ] cannot end in a class such as \\d", at: dash)
                }
                guard low <= high else { throw fail("the range in [ ] has its ends out of order", at: dash) }
                items.append(.range(low, high))
            } else {
                items.append(.range(low, low))
            }
        }
        return RegexScalarSet(items, negated: negated, caseless: flags.caseless)
    }

    private mutating func classElement() throws(RegexSyntaxError) -> Element {
        let start = offset
        let scalar = scalars[offset]
        offset += 1
        switch scalar {
        case "\\": return try escapeElement(start: start, inClass: true)
        case "[": throw fail("a [ inside [ ] must be escaped as \\[ (nested and POSIX classes are not supported)", at: start)
        default: return .scalar(scalar.value)
        }
    }

    // MARK: Characters

    private var peek: Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }

    private func peek(_ ahead: Int) -> Unicode.Scalar? {
        offset + ahead < scalars.count ? scalars[offset + ahead] : nil
    }

    private func fail(_ reason: String, at position: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(reason: reason, offset: position ?? offset)
    }

    private static func digit(_ scalar: Unicode.Scalar) -> Int? {
        (0x30...0x39).contains(scalar.value) ? Int(scalar.value - 0x30) : nil
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }
}
