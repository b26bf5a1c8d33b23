import Foundation
import Synchronization

/// A compiled regular expression from a filter (`~u`, `~h`, `~b`), and the text each of those terms searches.
///
/// ICU's syntax (as `NSRegularExpression` reads it) minus what needs backtracking: literals and escapes, `.`,
/// classes, `\d \w \s \h \v` and their negations, `^ $ \A \z \b \B`, groups, `|`, `* + ? {m,n}` (lazy forms
/// too, counts up to 1000), `(?i)` `(?s)` flags and `\Q…\E`. Back-references, look-around, atomic groups and
/// possessive quantifiers are refused with a reason.
///
/// A match anywhere in the text counts; `^` and `$` match at line ends too. Matching takes time linear in the
/// text (a lazily built DFA), so no pattern can hang a filter, whatever the body it searches. Equal when the
/// source and options are equal.
public struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// Whether letters match either case.
    public let ignoresCase: Bool
    private let engine: Engine

    /// Compiles `source`; throws ``TextPattern/Invalid`` with a reason when it is not a valid expression, or uses
    /// what filters do not support (back-references, look-around, …).
    public init(_ source: String, ignoresCase: Bool) throws(Invalid) {
        do {
            var parser = RegexParser(source)
            engine = Engine(try RegexProgram(try parser.parse(caseless: ignoresCase)))
        } catch {
            throw Invalid(reason: error.description)
        }
        self.source = source
        self.ignoresCase = ignoresCase
    }

    /// Why an expression did not compile.
    public struct Invalid: Error, Sendable, Hashable {
        public var reason: String
    }

    /// Whether the expression matches somewhere in `text`.
    public func matches(_ text: String) -> Bool {
        engine.matches(text)
    }

    public var description: String { source }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.source == rhs.source && lhs.ignoresCase == rhs.ignoresCase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(ignoresCase)
    }

    /// The program and one idle DFA cache, lent to one match at a time: states learnt on one row speed up the next.
    private final class Engine: Sendable {
        let program: RegexProgram
        let idle = Mutex<RegexDFA?>(nil)

        init(_ program: RegexProgram) {
            self.program = program
        }

        func matches(_ text: String) -> Bool {
            // Concurrent matches (SQLite readers, the inspector) each get a DFA; one goes back to be reused.
            let dfa = idle.withLock { $0.take() } ?? RegexDFA(program)
            let result = dfa.matches(text)
            idle.withLock { if $0 == nil { $0 = dfa } }
            return result
        }
    }
}

/// The text `~h` and `~b` search, built the same way for in-memory matching and for SQLite.
enum FilterText {
    /// Header fields as `Name: value` lines.
    static func headerLines(_ headers: [TraceHeader]) -> String {
        headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Body bytes as text (invalid UTF-8 becomes U+FFFD).
    static func bodyText(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }

    /// ASCII-only lower-casing, the same as SQLite's built-in `lower()`.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `needle` occurs in `haystack` byte for byte (SQLite's `instr` on UTF-8 text agrees).
    static func containsBytes(_ haystack: String, _ needle: String) -> Bool {
        let hay = Array(haystack.utf8), pin = Array(needle.utf8)
        guard !pin.isEmpty else { return true }
        guard hay.count >= pin.count else { return false }
        for start in 0...(hay.count - pin.count) where hay[start] == pin[0] {
            if hay[start..<(start + pin.count)].elementsEqual(pin) { return true }
        }
        return false
    }

    /// Exact equality of the UTF-8 bytes (SQLite's BINARY collation), not Swift's canonical equivalence.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}
