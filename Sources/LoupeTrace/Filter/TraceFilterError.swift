/// Why a filter expression could not be parsed, with the 1-based position (in characters) where it went wrong.
///
/// `description` is one line for a terminal: `at 5: expected a status like 503 or 5xx after ~c`, or
/// `unknown filter ~x at 1; expected one of ~m ~c ~d …`.
public struct TraceFilterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the problem is: 1 is the first character; one past the last character means "at the end".
    public var position: Int
    /// What the parser wanted there (for example "a status like 503 or 5xx after ~c").
    public var expected: String
    /// The whole one-line message.
    public var message: String

    public init(position: Int, expected: String, message: String) {
        self.position = position
        self.expected = expected
        self.message = message
    }

    public var description: String { message }

    /// `at P: expected …`
    package static func expected(_ what: String, at offset: Int) -> Self {
        Self(position: offset + 1, expected: what, message: "at \(offset + 1): expected \(what)")
    }

    /// `at P: <problem>` for errors that are not about a missing piece (a bad regex, too deep nesting).
    package static func problem(_ text: String, expected: String, at offset: Int) -> Self {
        Self(position: offset + 1, expected: expected, message: "at \(offset + 1): \(text)")
    }
}
