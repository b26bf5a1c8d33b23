import Foundation
import Synchronization
import LoupeTrace

extension TraceFilter {
    /// Parses `text`; throws a ``TraceFilterError`` naming the 1-based position and what was expected.
    ///
    /// `~since 10m` counts back from `now`; a time written without a zone is `timeZone`'s wall clock.
    public static func parse(_ text: String, now: Date = Date(), timeZone: TimeZone = .current) throws(TraceFilterError) -> TraceFilter {
        var parser = TraceFilterParser(text, now: now, timeZone: timeZone)
        return try parser.parse()
    }

    /// Parses `text`, or returns `nil` when it is `nil` or only whitespace (meaning "no filter").
    public static func parseIfPresent(_ text: String?, now: Date = Date(), timeZone: TimeZone = .current) throws(TraceFilterError) -> TraceFilter? {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return nil }
        return try parse(text, now: now, timeZone: timeZone)
    }
}

extension TextPattern {
    /// Compiles `source`; throws ``TextPattern/Invalid`` with a reason when it is not a valid expression, or uses
    /// what filters do not support (back-references, look-around, …).
    public init(_ source: String, ignoresCase: Bool) throws(Invalid) {
        let engine: Engine
        let trigrams: [String]
        do {
            var parser = RegexParser(source)
            let node = try parser.parse(caseless: ignoresCase)
            engine = Engine(try RegexProgram(node))
            trigrams = RegexTrigrams.required(node)
        } catch {
            throw Invalid(reason: error.description)
        }
        self.init(source: source, ignoresCase: ignoresCase, engine: TextPatternEngine { engine.matches($0) },
                  indexTrigrams: trigrams)
    }

    /// The program and one idle DFA cache, lent to one match at a time: states learnt on one row speed up the next.
    private final class Engine: Sendable {
        let program: RegexProgram
        let idle = Mutex<RegexDFA?>(nil)

        init(_ program: RegexProgram) {
            self.program = program
        }

        func matches(_ text: String) -> Bool {
            // Concurrent matches (SQLite readers, the TUI) each get a DFA; one goes back to be reused.
            let dfa = idle.withLock { $0.take() } ?? RegexDFA(program)
            let result = dfa.matches(text)
            idle.withLock { if $0 == nil { $0 = dfa } }
            return result
        }
    }
}

extension TraceFilterError {
    /// `unknown filter ~x at P; expected one of …`
    static func unknownFilter(_ name: String, at offset: Int) -> Self {
        let known = TraceFilterParser.termNames.map { "~" + $0 }.joined(separator: " ")
        return Self(
            position: offset + 1, expected: "one of \(known)",
            message: "unknown filter ~\(name) at \(offset + 1); expected one of \(known)")
    }
}
