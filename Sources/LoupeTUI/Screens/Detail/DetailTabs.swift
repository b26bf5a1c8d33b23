import Foundation
import Loupe
import LoupeContract
import LoupeProtobuf
import LoupeTrace

/// One exchange as the TUI's detail tabs: a header above the tab bar, and each tab's lines.
///
/// Pure functions of the exchange: the TUI draws them, and ``DetailDocument`` (what `loupe show` prints)
/// is built from them, so there is one rendering of an exchange. Every recorded value (URL, headers, bodies,
/// errors, notes, events) comes from a server or a file, so each one has its control characters made visible by
/// `TerminalText` before it reaches a line.
package struct DetailTabs {
    /// Where the lines are read: the TUI's tabs, or one printed document (`loupe show`) that has no tabs.
    package enum Medium: Sendable {
        case tabs, document
    }

    package let exchange: TraceExchange
    /// Gives times of day their time zone.
    package let calendar: Calendar
    /// Lets the text point at a tab (`see the Request tab`) only where there are tabs.
    package let medium: Medium
    /// Store numbers of the other exchanges this one names (the replayed original, the exchange a de-duplicated
    /// request joined), so they read `#12` as in `loupe list`; an id missing here reads as its lowercase UUID.
    package let numbers: [UUID: Int64]
    /// What checking the exchange against the OpenAPI contract found (`loupe tui --openapi`), for the Contract tab.
    package var verdict: ContractVerdict?
    /// Names a gRPC call's messages' fields (`--descriptor-set`): they show as JSON, not as `protoc --decode_raw`.
    package let messageTypes: ProtobufDescriptorSet?

    package init(exchange: TraceExchange, calendar: Calendar, medium: Medium = .tabs, numbers: [UUID: Int64] = [:],
                 messageTypes: ProtobufDescriptorSet? = nil) {
        self.exchange = exchange
        self.calendar = calendar
        self.medium = medium
        self.numbers = numbers
        self.messageTypes = messageTypes
    }

    /// `#12`, or the lowercase id of an exchange whose number is unknown.
    func reference(_ id: UUID) -> String {
        ExchangeLabel.reference(id, numbers: numbers)
    }

    /// One or two lines that sit above the tab bar: method + URL, status, duration, attempts, replay-of.
    package func header() -> [StyledLine] {
        var facts: [StyledLine.Span] = [statusSummary]
        // A retry refused after a real answer: the server's answer, then the refusal the app got.
        if exchange.status != nil, exchange.outcome == .shortCircuited {
            facts.append(.init(", then " + ExchangeOutcome.shortCircuited.word, .error))
        }
        facts += [.init("  duration ", .dim), .init(durationText)]
        facts += [.init("  attempts ", .dim), .init(String(exchange.attempts.count))]
        if let original = exchange.replayOf {
            facts += [.init("  ↻ replay of ", .replay), .init(reference(original), .dim)]
        }
        if let source = exchange.source {
            facts += [.init("  from ", .dim), .init(source.description)]
        }
        return Self.safe([StyledLine([.init(exchange.method + " " + exchange.url, .heading)]), StyledLine(facts)])
    }

    /// The tab's lines, unwrapped (wrap them with ``StyledLine/wrapped(to:)``); `width` is only for the timing
    /// waterfall, which is drawn to fit it. Long bodies give long arrays: build them once per tab and body view.
    package func lines(_ tab: DetailTab, bodyView: BodyView, width: Int) -> [StyledLine] {
        switch tab {
        case .request: requestLines(bodyView)
        case .response: responseLines(bodyView)
        case .attempts: Self.safe(attemptLines)
        case .events: Self.safe(eventLines)
        case .timing: Self.safe(TimingWaterfall(exchange: exchange).lines(width: width))
        case .messages: messageLines
        case .contract: contractLines(bodyView)
        }
    }

    /// A tab's label with a count where useful ("Attempts 3", "Events 7").
    package func label(_ tab: DetailTab) -> String {
        switch tab {
        case .attempts: "\(tab.title) \(exchange.attempts.count)"
        case .events: "\(tab.title) \(exchange.events.count)"
        case .messages: "\(tab.title) \(exchange.stream?.messageCount ?? 0)"
        case .contract: "\(tab.title) \(verdict?.findings.count ?? 0)"
        case .request, .response, .timing: tab.title
        }
    }

    /// The exchange's duration, or why there is none.
    var durationText: String {
        exchange.duration.map(Quantity.duration) ?? (exchange.endedAt == nil ? "in flight" : "—")
    }

    /// `+12.5 ms` (or `-3.0 ms` when clocks disagree) from the exchange's start; `—` when unknown.
    func offset(_ date: Date?) -> String {
        guard let date else { return "—" }
        let seconds = date.timeIntervalSince(exchange.startedAt)
        return (seconds.isFinite && seconds >= 0 ? "+" : "") + Quantity.duration(seconds)
    }

    /// `lines` with control characters in every span made visible.
    static func safe(_ lines: [StyledLine]) -> [StyledLine] {
        lines.map { line in StyledLine(line.spans.map { StyledLine.Span(TerminalText.line($0.text), $0.style) }) }
    }

    /// A section heading with an optional dim note (`Request body  12 B`).
    static func heading(_ title: String, note: String = "") -> StyledLine {
        note.isEmpty ? StyledLine(title, style: .heading) : StyledLine([.init(title, .heading), .init("  " + note, .dim)])
    }

    private var statusSummary: StyledLine.Span {
        // A gRPC call's answer is its status, not the HTTP 200 every call gets: `UNAVAILABLE`, as the list reads it.
        if let stream = exchange.stream, stream.kind == .grpc, stream.closeCode != nil {
            return .init(stream.code, stream.isFailedCall ? .error : StatusStyle.style(for: exchange.status ?? 200))
        }
        if let status = exchange.status {
            return .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status))
        }
        if exchange.endedAt == nil, exchange.error == nil { return .init("in flight", .dim) }
        switch exchange.outcome {
        case .shortCircuited: return .init(ExchangeOutcome.shortCircuited.word, .error)
        case .cancelled: return .init("cancelled", .dim)
        case .clientError: return .init("client error", .error)
        case .success, .httpError, .transportError: return .init("no response", .error)
        }
    }
}
