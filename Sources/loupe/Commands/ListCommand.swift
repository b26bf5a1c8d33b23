import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe list [STORE] [--limit N] [--json]`: the newest recorded exchanges, oldest first.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List recorded exchanges.")

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: "Show at most N exchanges (the newest).")
    var limit: Int = 50

    @Flag(help: "Print JSON (an array of exchanges).")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let (store, _) = try StoreAccess.openForReading(store)
        let summaries: [TraceSummary]
        do {
            summaries = try store.recent(limit: limit)
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
            print("No exchanges recorded yet.")
            return
        }
        for summary in summaries {
            let columns = [
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
