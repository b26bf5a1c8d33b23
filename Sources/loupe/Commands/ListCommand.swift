import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe list [STORE] [--filter EXPR] [--limit N] [--json]`: the newest matching exchanges, oldest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List recorded exchanges.", discussion: FilterOption.help)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: "Only exchanges matching EXPR, e.g. '~c 5xx | ~dur >1s' (see below).")
    var filter: String?

    @Option(help: "Show at most N exchanges (the newest).")
    var limit: Int = 50

    @Flag(help: "Print JSON (an array of exchanges).")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let (store, _) = try StoreAccess.openForReading(store)
        let summaries: [TraceSummary]
        do {
            summaries = try store.summaries(matching: filter, limit: limit)
        } catch {
            throw CommandFailure.badInput("cannot read the store: \(error)")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(summaries.map(SummaryJSON.init)), as: UTF8.self))
            return
        }
        if summaries.isEmpty {
            print(filter == nil ? "No exchanges recorded yet." : "No exchanges match.")
            return
        }
        for summary in summaries {
            let columns = [
                "#\(summary.sequence)".padding(toLength: 7, withPad: " ", startingAt: 0),
                Formatting.timeFormatter.string(from: summary.startedAt),
                summary.method.padding(toLength: 7, withPad: " ", startingAt: 0),
                Formatting.status(summary).padding(toLength: 4, withPad: " ", startingAt: 0),
                Formatting.milliseconds(summary.duration).padding(toLength: 9, withPad: " ", startingAt: 0),
                (summary.attemptCount > 1 ? "×\(summary.attemptCount)" : "").padding(toLength: 3, withPad: " ", startingAt: 0),
                summary.url + (summary.replayOf != nil ? "  (replay)" : ""),
            ]
            print(columns.joined(separator: " "))
        }
    }
}

/// The `--filter EXPR` option every command shares: parsing, its one-line error, and its help text.
enum FilterOption {
    /// Parses `text`; nil or blank means no filter. A bad expression is bad input (exit 2) with the parser's reason.
    static func parse(_ text: String?) throws -> TraceFilter? {
        do {
            return try TraceFilter.parseIfPresent(text)
        } catch {
            throw CommandFailure.badInput("bad filter \"\(text ?? "")\": \(error)")
        }
    }

    static let help = """
        Filters (--filter EXPR), as in mitmproxy:
          ~m POST         method                ~c 503, ~c 5xx, ~c 500-504   final status
          ~d example.com  host contains         ~u REGEX (or a bare word)     URL
          ~h REGEX        header lines          ~b REGEX                      request or response body
          ~op NAME        operation name        ~dur >500ms, ~dur <=2s        duration (ms, s)
          ~att >1         attempts              ~cb open|half-open|closed     breaker state at dispatch
          ~e              errors                ~replay                       replays
        Combine with ! (not), & (and, also implied between terms), | (or) and parentheses. Quote arguments that
        contain spaces, parentheses, & or |: ~b "a b".
        """
}
