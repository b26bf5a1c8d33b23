import ArgumentParser
import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFilter
import LoupeFormats

/// `loupe list [STORE] [--filter EXPR] [--limit N] [--json]`: the newest matching exchanges, oldest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List recorded exchanges.", discussion: FilterOption.help)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: "Only exchanges matching EXPR, e.g. '~c 5xx | ~dur >1s' (see below).")
    var filter: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Show at most N exchanges (the newest), 1 to 10000000 (default: 50).", valueName: "N"),
        transform: CountArgument.parser(in: 1...10_000_000))
    var limit: CountArgument = 50

    @Flag(help: "Print JSON (an array of exchanges).")
    var json = false

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let (store, _) = try StoreAccess.openForReading(store)
        let summaries: [TraceSummary]
        do {
            summaries = try store.summaries(matching: filter, limit: limit.value)
        } catch {
            throw StoreAccess.readFailure(error)
        }
        if json {
            print(try Formatting.json(summaries.map(SummaryJSON.init)))
            return
        }
        if summaries.isEmpty {
            print(filter == nil ? "No exchanges recorded yet." : "No exchanges match.")
            return
        }
        for summary in summaries { print(Self.line(summary)) }
    }

    /// One exchange's line. Method and URL are recorded data: shown with control characters made visible.
    static func line(_ summary: TraceSummary) -> String {
        [
            "#\(summary.sequence)".padding(toLength: 7, withPad: " ", startingAt: 0),
            Formatting.pad(Formatting.time(summary.startedAt), 23),
            TerminalText.line(summary.method).padding(toLength: 7, withPad: " ", startingAt: 0),
            Formatting.status(summary).padding(toLength: 4, withPad: " ", startingAt: 0),
            Formatting.pad(Quantity.duration(summary.duration), 9),
            (summary.attemptCount > 1 ? "×\(summary.attemptCount)" : "").padding(toLength: 3, withPad: " ", startingAt: 0),
            TerminalText.line(summary.url) + (summary.replayOf != nil ? "  (replay)" : "") + Formatting.answerBefore(summary),
        ].joined(separator: " ")
    }
}

/// The `--filter EXPR` option every command shares: parsing, its one-line error, and its help text.
enum FilterOption {
    /// Parses `text`; nil or blank means no filter. A bad expression is bad input (exit 2) with the parser's reason.
    /// `~drift` needs the contract: only the TUI holds one (`--openapi`, `withContract`). Spans (`~since 1h`) count
    /// back from `now`: a command reading several filters gives them one clock, so their windows meet exactly.
    static func parse(_ text: String?, withContract: Bool = false, now: Date = Date()) throws -> TraceFilter? {
        let filter: TraceFilter?
        do {
            filter = try TraceFilter.parseIfPresent(text, now: now)
        } catch {
            // A 10,000-character filter echoed whole would bury the reason; the position in the error finds the spot.
            let shown = (text ?? "").count > 60 ? String((text ?? "").prefix(57)) + "…" : (text ?? "")
            throw CommandFailure.badInput("bad filter \"\(TerminalText.line(shown))\": \(error)")
        }
        if !withContract, filter?.needsContract == true {
            throw CommandFailure.badInput(TraceFilter.contractNeeded)
        }
        return filter
    }

    /// One term a line, every line under ``helpWidth`` characters: the argument parser wraps help at the
    /// terminal's width (80 columns when it cannot tell), and a two-column table wrapped in the middle of its
    /// rows could not be read.
    static let help = """
        Filters (--filter EXPR), as in mitmproxy:
          ~m POST                      method
          ~c 503, ~c 5xx, ~c 500-504   final status
          ~d example.com               host contains
          ~u REGEX (or a bare word)    URL
          ~h REGEX                     header lines
          ~b REGEX                     request or response body
          ~bq REGEX, ~bs REGEX         request body, response body
          ~msg REGEX                   stream messages (SSE, WebSocket, gRPC)
          ~err REGEX                   error text
          ~any REGEX                   URL, headers, body, messages or error
          ~op NAME                     operation name
          ~gql NAME                    GraphQL operation name
          ~drift, ~drift KIND          drifts from the contract (tui --openapi)
          ~dur >500ms, ~dur <=2s       duration (ms, s)
          ~att >1                      attempts
          ~cb open|half-open|closed    breaker state at dispatch
          ~cb short-circuited          refused by the breaker, nothing sent
          ~e                           errors
          ~replay                      replays
          ~served                      answered by loupe serve
          ~src NAME                    sent by a linked app (name contains)
          ~rule [NAME]                 a rule acted on it (name contains)
          ~grpc, ~gs UNAVAILABLE|14    gRPC calls; by status name or number
          ~since 10m|2h|3d|TIME        started at or after (ISO-8601 TIME)
          ~until TIME                  started before
        Combine with ! (not), & (and, also implied between terms), | (or)
        and parentheses. Quote arguments that contain spaces, parentheses,
        & or |: ~b "a b".
        """

    /// The widest line of ``help``: within an 80-column terminal after the parser's indent.
    static let helpWidth = 72
}
