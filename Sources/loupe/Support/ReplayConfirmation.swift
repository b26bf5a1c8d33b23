import Foundation
import LoupeTrace
import LoupeFormats
import LoupeReplay

/// `loupe replay`'s guard against repeating side effects (`ReplaySafety`, the same rule as the TUI's `r`):
/// requests that are not safe to repeat are sent only after a "y" typed at the terminal, or with `--yes`.
/// Without a terminal on stdin and without `--yes`, nothing is sent and the command exits 2.
enum ReplayConfirmation {
    /// Each exchange that needs confirmation, with the reason.
    static func unsafe(_ exchanges: [TraceExchange]) -> [(exchange: TraceExchange, reason: String)] {
        exchanges.compactMap { exchange in ReplaySafety.reasonToConfirm(exchange).map { (exchange, $0) } }
    }

    /// Returns when the replay may go ahead; throws bad input (no terminal, no `--yes`) or a failure (declined).
    /// `ask` shows the question and returns the answer typed, or nil at end of input.
    static func check(_ exchanges: [TraceExchange], times: Int, yes: Bool, interactive: Bool,
                      ask: (String) -> String?) throws {
        let unsafe = unsafe(exchanges)
        guard !unsafe.isEmpty, !yes else { return }
        guard interactive else { throw CommandFailure.badInput(refusal(unsafe, total: exchanges.count)) }
        let answer = ask(question(unsafe, total: exchanges.count, times: times))?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw CommandFailure.failed("replay cancelled; nothing was sent")
        }
    }

    /// Says before anything is sent that recorded credentials were redacted and are left out (the replay would
    /// get a 401 without saying why), and how to supply them; `nil` when none is missing. `supplied` holds the
    /// lowercased names `-H` (or `--bearer`/`--basic`) sets; `suppliedQuery` the query items given a value by
    /// `LOUPE_REPLAY_QUERY_<NAME>` (a redacted query value is never sent as the marker: issue 43.6).
    static func redactedWarning(_ exchanges: [TraceExchange], supplied: Set<String>,
                                suppliedQuery: Set<String> = []) -> String? {
        var missing: [String] = []
        var missingQuery: [String] = []
        var affected = 0
        for exchange in exchanges {
            let names = ReplayCredentials.redactedNames(exchange).filter { !supplied.contains($0.lowercased()) }
            let items = TraceReplayer.redactedQueryNames(in: exchange.url).filter { !suppliedQuery.contains($0) }
            if !names.isEmpty || !items.isEmpty { affected += 1 }
            for name in names where !missing.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                missing.append(name)
            }
            for item in items where !missingQuery.contains(item) { missingQuery.append(item) }
        }
        guard !missing.isEmpty || !missingQuery.isEmpty else { return nil }
        let which = exchanges.count == 1 ? "the recorded request" : "\(affected) of the \(exchanges.count) recorded requests"
        var parts: [String] = []
        if let first = missing.first {
            parts.append("\(missing.joined(separator: ", ")) \(missing.count == 1 ? "was" : "were") redacted in \(which) and \(missing.count == 1 ? "is" : "are") left out; supply \(missing.count == 1 ? "it" : "them") with -H '\(first): …'")
        }
        if !missingQuery.isEmpty {
            parts.append("the query's \(missingQuery.joined(separator: ", ")) \(missingQuery.count == 1 ? "was" : "were") redacted in \(which) and \(missingQuery.count == 1 ? "is" : "are") left out; supply \(missingQuery.count == 1 ? "it" : "them") with \(missingQuery.map(ReplayCredentials.queryEnvironmentName).joined(separator: ", "))")
        }
        return TerminalText.line("loupe: warning: " + parts.joined(separator: "; "))
    }

    static func refusal(_ unsafe: [(exchange: TraceExchange, reason: String)], total: Int) -> String {
        if unsafe.count == 1, total == 1 {
            return "\(name(unsafe[0].exchange)): \(unsafe[0].reason); pass --yes to replay it without asking"
        }
        return "\(unsafe.count) of the \(total) selected requests are not safe to repeat (\(list(unsafe))); pass --yes to replay them without asking"
    }

    static func question(_ unsafe: [(exchange: TraceExchange, reason: String)], total: Int, times: Int) -> String {
        let repeated = times == 1 ? "" : " \(times) times"
        if unsafe.count == 1, total == 1 {
            return "loupe: \(name(unsafe[0].exchange)): \(unsafe[0].reason). Send it again\(repeated)? [y/N] "
        }
        return "loupe: \(unsafe.count) of the \(total) selected requests are not safe to repeat (\(list(unsafe))). Replay them\(repeated)? [y/N] "
    }

    /// Prints `question` on stderr and reads a line from the terminal, first discarding anything typed before the
    /// question appeared (a paste must not answer it).
    static func askTerminal(_ question: String) -> String? {
        tcflush(STDIN_FILENO, TCIFLUSH)
        StandardStreams.error(TerminalText.line(question))
        return readLine()
    }

    private static func name(_ exchange: TraceExchange) -> String {
        "\(exchange.method) \(exchange.url)"
    }

    private static func list(_ unsafe: [(exchange: TraceExchange, reason: String)]) -> String {
        let shown = unsafe.prefix(3).map { "\($0.exchange.method) \($0.exchange.pathAndQuery)" }
        return shown.joined(separator: ", ") + (unsafe.count > 3 ? ", …" : "")
    }
}
