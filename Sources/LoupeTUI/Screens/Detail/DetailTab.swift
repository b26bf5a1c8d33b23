import LoupeTrace

/// The tabs of the TUI's detail, in the order Tab cycles through them.
package enum DetailTab: String, CaseIterable, Sendable {
    case request, response, attempts, events, timing, messages, contract

    /// The name on the tab bar.
    package var title: String {
        switch self {
        case .request: "Request"
        case .response: "Response"
        case .attempts: "Attempts"
        case .events: "Events"
        case .timing: "Timing"
        case .messages: "Messages"
        case .contract: "Contract"
        }
    }

    /// The tabs `exchange` has: Messages only for a stream.
    package static func tabs(for exchange: TraceExchange?) -> [DetailTab] {
        allCases.filter { $0 != .contract && ($0 != .messages || exchange?.stream != nil) }
    }

    /// The tabs `exchange` has, and Contract when it was checked against an OpenAPI contract.
    package static func tabs(for exchange: TraceExchange?, checked: Bool) -> [DetailTab] {
        tabs(for: exchange) + (checked ? [.contract] : [])
    }
}

/// How a body is shown in the Request and Response tabs.
package enum BodyView: String, CaseIterable, Sendable {
    /// JSON re-indented (never re-encoded), form fields decoded, other text as text, binary as a hex dump.
    case pretty
    /// The bytes as UTF-8 text, invalid sequences shown as `�`.
    case raw
    /// Offset, 16 bytes in hex and their printable ASCII per line.
    case hex
}
