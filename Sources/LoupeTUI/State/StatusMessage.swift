/// The one-line message above the footer: results of commands, replay outcomes, problems.
package struct StatusMessage: Hashable, Sendable {
    /// The text shown.
    package var text: String
    /// Whether it reports a failure (shown in the error role).
    package var isError: Bool

    /// A message; `isError` marks failures.
    package init(_ text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }

    /// A failure message.
    package static func error(_ text: String) -> StatusMessage { StatusMessage(text, isError: true) }
}
