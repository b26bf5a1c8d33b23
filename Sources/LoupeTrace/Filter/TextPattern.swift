import Foundation

/// A compiled regular expression from a filter (`~u`, `~h`, `~b`), and the text each of those terms searches.
///
/// ICU syntax (`NSRegularExpression`); a match anywhere in the text counts (use `^`/`$` to anchor). Equal when the
/// source and options are equal.
public struct TextPattern: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// Whether letters match either case.
    public let ignoresCase: Bool
    private let regex: NSRegularExpression

    /// Compiles `source`; throws ``TextPattern/Invalid`` with a reason when it is not a valid expression.
    public init(_ source: String, ignoresCase: Bool) throws(Invalid) {
        var options: NSRegularExpression.Options = [.anchorsMatchLines]
        if ignoresCase { options.insert(.caseInsensitive) }
        do {
            regex = try NSRegularExpression(pattern: source, options: options)
        } catch {
            throw Invalid(reason: Self.reason(source))
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
        regex.firstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)) != nil
    }

    public var description: String { source }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.source == rhs.source && lhs.ignoresCase == rhs.ignoresCase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(ignoresCase)
    }

    /// Swift's own regex parser words its errors well ("expected ')'"); ICU only says "invalid".
    private static func reason(_ source: String) -> String {
        do {
            _ = try Regex(source)
            return "not a valid regular expression"
        } catch {
            return String(describing: error)
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
