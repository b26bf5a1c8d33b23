import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe prune [STORE] [--max-age DAYS] [--max-count N] [--max-bytes MB] [--dry-run] [--vacuum]`: removes the
/// oldest exchanges until the store is within its bounds.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Remove the oldest exchanges until the store is within bounds.",
        discussion: """
            Bounds not given keep their defaults: 14 days and 256 MB, any number of exchanges (writers apply the same \
            defaults by themselves). Age counts from when an exchange was stored. Bytes estimate, from below, the space \
            exchanges take (their URLs, headers, bodies, attempts and events plus an allowance for columns and \
            indexes). Freed pages are reused by later recordings; --vacuum returns them to the file system.
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: ArgumentHelp("Remove exchanges stored more than DAYS days ago (fractions allowed).", valueName: "DAYS"))
    var maxAge: Double?

    @Option(help: ArgumentHelp("Keep at most N exchanges, the newest.", valueName: "N"))
    var maxCount: Int?

    @Option(help: ArgumentHelp("Keep at most MB megabytes (MiB) of recorded data.", valueName: "MB"))
    var maxBytes: Double?

    @Flag(help: "Say what would be removed, and remove nothing.")
    var dryRun = false

    @Flag(help: "Afterwards, rewrite the file without its free pages (slow on big stores).")
    var vacuum = false

    func validate() throws {
        if let maxAge, !(maxAge > 0 && maxAge.isFinite) { throw ValidationError("--max-age must be a positive number of days") }
        if let maxCount, maxCount < 0 { throw ValidationError("--max-count must not be negative") }
        if let maxBytes, !(maxBytes >= 0 && maxBytes.isFinite) { throw ValidationError("--max-bytes must not be negative") }
        if dryRun && vacuum { throw ValidationError("--vacuum cannot be combined with --dry-run") }
    }

    var bounds: TraceStoreBounds {
        TraceStoreBounds(
            maxCount: maxCount,
            maxBytes: maxBytes.map { Int(($0 * 1_048_576).rounded()) } ?? TraceStoreBounds.defaultMaxBytes,
            maxAge: maxAge.map { $0 * 86_400 } ?? TraceStoreBounds.defaultMaxAge)
    }

    func run() async throws {
        let path = StoreAccess.path(store)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure.badInput("no trace store at \(path)")
        }
        // Writable (pruning deletes, and an old store needs its schema upgraded to know sizes and ages), but with
        // no bounds of its own, so opening it removes nothing before the dry run has spoken.
        let store: SQLiteTraceStore
        do {
            store = try SQLiteTraceStore(path: path, bounds: nil)
        } catch {
            throw CommandFailure.badInput("cannot open \(path): \(error)")
        }
        do {
            let result = try store.prune(bounds, now: Date(), dryRun: dryRun)
            print(Self.describe(result, bounds: bounds))
            if vacuum {
                try store.vacuum()
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
                print("Vacuumed: the file is now \(StatsCommand.bytes(size)).")
            }
        } catch {
            throw CommandFailure.badInput("cannot prune \(path): \(error)")
        }
    }

    static func describe(_ result: PruneResult, bounds: TraceStoreBounds) -> String {
        let why = result.reasons.map { reason -> String in
            switch reason {
            case .age: "older than \(bounds.maxAge.map { String(format: "%g", $0 / 86_400) } ?? "?") days"
            case .count: "over \(bounds.maxCount ?? 0) exchanges"
            case .bytes: "over \(StatsCommand.bytes(bounds.maxBytes ?? 0))"
            }
        }
        let verb = result.isDryRun ? "Would remove" : "Removed"
        let remain = result.isDryRun ? "would remain" : "remain"
        let removed = "\(verb) \(result.removedCount) exchanges (\(StatsCommand.bytes(result.removedBytes)))"
            + (why.isEmpty ? "" : ": " + why.joined(separator: ", "))
        return removed + "; \(result.remainingCount) \(remain) (\(StatsCommand.bytes(result.remainingBytes)))."
    }
}
