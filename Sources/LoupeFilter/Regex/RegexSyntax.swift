/// A parsed filter regex: the tree ``RegexCompiler`` turns into a program.
indirect enum RegexNode: Sendable {
    case empty
    /// Consumes one scalar of the set.
    case set(RegexScalarSet)
    /// `.` under `(?s)`: any scalar, and `\r\n` as one, as ICU counts it.
    case anyIncludingNewlines
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `max == nil` means no upper bound.
    case repetition(RegexNode, min: Int, max: Int?)
}

/// The zero-width tests: anchors and word boundaries.
enum RegexAssertion: Sendable, Equatable {
    /// `^`: the start of the text or of a line (after a line terminator, but not at the very end).
    case lineStart
    /// `$`: the end of the text or of a line (before a line terminator, but not between `\r` and `\n`).
    case lineEnd
    /// `\A`
    case textStart
    /// `\z`
    case textEnd
    /// `\b`
    case wordBoundary
    /// `\B`
    case notWordBoundary
}

/// Why a pattern was refused, and where (0-based offset in Unicode scalars).
struct RegexSyntaxError: Error, Sendable {
    var reason: String
    var offset: Int

    /// `<reason> (at N in the expression)`, N counted from 1.
    var description: String { "\(reason) (at \(offset + 1) in the expression)" }
}
