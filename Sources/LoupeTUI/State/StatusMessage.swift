/// The one-line message above the footer: results of commands, replay outcomes, problems.
public struct StatusMessage: Hashable, Sendable {
    /// The text shown.
    public var text: String
    /// Whether it reports a failure (shown in the error role).
    public var isError: Bool

    /// A message; `isError` marks failures.
    public init(_ text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }

    /// A failure message.
    public static func error(_ text: String) -> StatusMessage { StatusMessage(text, isError: true) }
}
