/// What a command reads after its name at the `:` prompt, and what Tab offers for it.
package enum CommandArgument: Hashable, Sendable {
    /// A filter expression (empty clears the filter).
    case filterExpression
    /// Text to find.
    case text
    /// One of these words.
    case choice([String])
    /// `[selected|marked|filtered] curl|har|raw PATH`, or `cancel`.
    case exportTarget
    /// How many times to send, then how many at once (`10 2`).
    case repeatPlan

    /// How the help writes it.
    package var placeholder: String {
        switch self {
        case .filterExpression: "EXPR"
        case .text: "TEXT"
        case .choice(let words): words.joined(separator: "|")
        case .exportTarget: "[selected|marked|filtered] curl|har|raw PATH | cancel"
        case .repeatPlan: "TIMES [AT-ONCE]"
        }
    }
}
