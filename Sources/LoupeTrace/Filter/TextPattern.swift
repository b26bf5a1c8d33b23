import Foundation

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
    private let engine: TextPatternEngine
    /// Trigrams (printable ASCII, lower-cased) that every text the pattern matches contains: what the store's
    /// search index is asked for before the pattern confirms each candidate. Empty when none is certain.
    package let indexTrigrams: [String]

    /// A pattern over a compiled `engine`: how LoupeFilter's `init(_:ignoresCase:)` makes one.
    package init(source: String, ignoresCase: Bool, engine: TextPatternEngine, indexTrigrams: [String] = []) {
        self.source = source
        self.ignoresCase = ignoresCase
        self.engine = engine
        self.indexTrigrams = indexTrigrams
    }

    /// Why an expression did not compile.
    public struct Invalid: Error, Sendable, Hashable {
        public var reason: String

        package init(reason: String) {
            self.reason = reason
        }
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
}

/// What matches a ``TextPattern``: Loupe's regex engine (LoupeFilter), which is compiled only into what parses
/// filters, not into an app that records.
///
/// A class, not an existential: a pattern stays one reference wide, and `TraceFilter`'s derived `==`, which
/// recurses once per term of an `&` chain, keeps the frame that fits the worst accepted filter in a 512 KiB stack
/// (`FilterLimitsTests`; a 40-byte existential in each copied pattern overflowed it).
package final class TextPatternEngine: Sendable {
    private let match: @Sendable (String) -> Bool

    package init(_ match: @escaping @Sendable (String) -> Bool) {
        self.match = match
    }

    func matches(_ text: String) -> Bool {
        match(text)
    }
}

/// The text `~h` and `~b` search, built the same way for in-memory matching and for SQLite.
package enum FilterText {
    /// Header fields as `Name: value` lines.
    package static func headerLines(_ headers: [TraceHeader]) -> String {
        headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Body bytes as text (invalid UTF-8 becomes U+FFFD).
    package static func bodyText(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }

    /// ASCII-only lower-casing, the same as SQLite's built-in `lower()`.
    package static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `needle` occurs in `haystack` byte for byte (SQLite's `instr` on UTF-8 text agrees).
    /// Searched in the strings' own UTF-8 storage: the recorder asks this of every GET's URL, where copying both
    /// strings into arrays first cost more than the search.
    package static func containsBytes(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack, needle = needle
        return haystack.withUTF8 { hay in
            needle.withUTF8 { pin in
                guard let first = pin.first else { return true }
                guard hay.count >= pin.count else { return false }
                for start in 0...(hay.count - pin.count) where hay[start] == first {
                    if UnsafeBufferPointer(rebasing: hay[start..<(start + pin.count)]).elementsEqual(pin) { return true }
                }
                return false
            }
        }
    }

    /// Exact equality of the UTF-8 bytes (SQLite's BINARY collation), not Swift's canonical equivalence.
    package static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}
