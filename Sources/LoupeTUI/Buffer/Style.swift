/// What a cell is for, never which colour it has: only a ``Terminal`` turns roles into colours (htop's
/// `ColorElements`), so the whole TUI reads the same in colour, in monochrome and with `NO_COLOR`.
public enum Style: String, Hashable, Sendable, CaseIterable {
    /// Ordinary text.
    case normal
    /// Secondary text: hints, units, placeholders.
    case dim
    /// Column headings of the list.
    case header
    /// The selected row.
    case selection
    /// A 2xx status.
    case statusSuccess
    /// A 3xx status.
    case statusRedirect
    /// A 4xx status.
    case statusClientError
    /// A 5xx status.
    case statusServerError
    /// A failure without a status (transport error), and error messages.
    case error
    /// The duration bar.
    case bar
    /// A key name in the footer.
    case footerKey
    /// A key description in the footer.
    case footerText
    /// The title bar.
    case title
    /// The replay marker (↻) and replay references.
    case replay
    /// A section heading in the detail view ("Request headers").
    case heading
    /// A field name: header names, attempt labels, JSON object keys.
    case label
    /// A JSON string value.
    case jsonString
    /// A JSON number, as written.
    case jsonNumber
    /// `true`, `false` and `null` in JSON.
    case jsonLiteral
    /// The timing waterfall's send phase (attempt start to request sent).
    case timingSend
    /// The timing waterfall's wait phase (to the first byte of the response).
    case timingWait
    /// The timing waterfall's receive phase (first byte to the end).
    case timingReceive
    /// The mark (●) of a marked exchange.
    case mark
    /// Text matching the current search.
    case searchHit
    /// A detail tab's title; ``activeTab`` for the one shown.
    case tab
    /// The detail tab shown.
    case activeTab
    /// The prompt's text.
    case prompt
    /// The prompt's cursor cell.
    case cursor
}
