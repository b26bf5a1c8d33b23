import ArgumentParser
import Foundation
import Loupe
import LoupeTrace
import LoupeFormats

/// `loupe prune [STORE] [--max-age DAYS] [--max-count N] [--max-bytes MB] [--set-max-… VALUE|none] [--dry-run]
/// [--vacuum]`: removes the oldest exchanges until the store is within its bounds, and changes those bounds.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Remove the oldest exchanges until the store is within bounds.",
        discussion: """
            A store has its own bounds, recorded when it was created (256 MB and 14 days unless changed) and applied \
            by every command that records into it. --set-max-bytes, --set-max-age and --set-max-count change them \
            (`none` for no limit) and prune to the new bounds at once. --max-bytes, --max-age and --max-count apply \
            to this prune only, over the store's own. Age counts from when an exchange was stored. Bytes estimate, \
            from below, the space exchanges take (their URLs, headers, bodies, attempts and events plus an \
            allowance for columns and indexes). --dry-run reads the store without changing it. Freed pages are \
            reused by later recordings; --vacuum returns them to the file system.
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "This prune only: remove exchanges stored more than DAYS days ago (fractions allowed; 0.0001 to 36500).", valueName: "DAYS"),
        transform: { try DurationArgument.days($0).days })
    var maxAge: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("This prune only: keep at most N exchanges, the newest (0 to 2147483647).", valueName: "N"),
            transform: { try CountArgument.parse($0, in: 0...2_147_483_647).value })
    var maxCount: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "This prune only: keep at most MB megabytes (MiB) of recorded data (0 to 16777216).", valueName: "MB"),
        transform: { try ByteSizeArgument.megabytes($0).megabytes })
    var maxBytes: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Set the store's own age bound: DAYS (0.0001 to 36500) or none.", valueName: "DAYS|none"),
        transform: { try StoreBound.parse($0) { try DurationArgument.days($0).seconds } })
    var setMaxAge: StoreBound<Double>?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Set the store's own count bound: N (1 to 2147483647) or none.", valueName: "N|none"),
        transform: { try StoreBound.parse($0) { try CountArgument.parse($0, in: 1...2_147_483_647).value } })
    var setMaxCount: StoreBound<Int>?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Set the store's own size bound: MB (MiB, 0.001 to 16777216) or none.", valueName: "MB|none"),
        transform: { try StoreBound.parse($0) { try StoreBound<Int>.positiveBytes($0) } })
    var setMaxBytes: StoreBound<Int>?

    @Flag(help: "Say what would be removed (and what the bounds would become), and change nothing.")
    var dryRun = false

    @Flag(help: "Afterwards, rewrite the file without its free pages (slow on big stores).")
    var vacuum = false

    func validate() throws {
        if dryRun && vacuum { throw ValidationError("--vacuum cannot be combined with --dry-run") }
        for (once, set, name) in [(maxAge != nil, setMaxAge != nil, "age"), (maxCount != nil, setMaxCount != nil, "count"),
                                  (maxBytes != nil, setMaxBytes != nil, "bytes")] where once && set {
            throw ValidationError("give --max-\(name) (this prune only) or --set-max-\(name) (the store's bound), not both")
        }
    }

    /// Whether the store's own bounds change.
    var setsBounds: Bool { setMaxAge != nil || setMaxCount != nil || setMaxBytes != nil }

    /// The store's bounds with the --set-max-… changes.
    func newStoreBounds(from bounds: TraceStoreBounds) -> TraceStoreBounds {
        var bounds = bounds
        if let setMaxAge { bounds.maxAge = setMaxAge.limit }
        if let setMaxCount { bounds.maxCount = setMaxCount.limit }
        if let setMaxBytes { bounds.maxBytes = setMaxBytes.limit }
        return bounds
    }

    /// The bounds this prune applies: the store's, with the one-off --max-… values over them.
    func pruneBounds(from storeBounds: TraceStoreBounds) -> TraceStoreBounds {
        var bounds = storeBounds
        if let maxAge { bounds.maxAge = maxAge * 86_400 }
        if let maxCount { bounds.maxCount = maxCount }
        if let maxBytes { bounds.maxBytes = Int((maxBytes * 1_048_576).rounded()) }
        return bounds
    }

    func run() async throws {
        let path = StoreAccess.path(store)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure.badInput("no trace store at \(path)")
        }
        // A dry run only reads (a store from an older Loupe is not even upgraded); a real one writes, with no
        // automatic pruning of its own, so only the bounds printed below decide what goes.
        let (store, _) = dryRun ? try StoreAccess.openForReading(path) : try StoreAccess.openForWriting(path, autoPrune: false)
        do {
            var storeBounds = try store.bounds
            if setsBounds {
                storeBounds = newStoreBounds(from: storeBounds)
                if !dryRun { try store.setBounds(storeBounds) }
                print("Bounds of \(TerminalText.line(path)) \(dryRun ? "would become" : "now"): \(storeBounds).")
            } else {
                print("Bounds of \(TerminalText.line(path)): \(storeBounds).")
            }
            if dryRun, let last = try store.lastPrune {
                let when = ISO8601DateFormatter().string(from: last.lastAt)
                print("Last prune (\(last.isAutomatic ? "automatic" : "by request"), \(when)): removed \(last.summary).")
            }
            let bounds = pruneBounds(from: storeBounds)
            let result = try store.prune(bounds, now: Date(), dryRun: dryRun)
            print(Self.describe(result, bounds: bounds))
            if vacuum {
                let size = try store.vacuum()
                print("Vacuumed: the store now takes \(Quantity.bytes(size)) (\(Quantity.count(size, "byte")), its file and write-ahead log).")
            }
        } catch let error as TraceStoreError {
            throw CommandFailure.badInput("cannot prune \(TerminalText.line(error.description))")
        }
    }

    static func describe(_ result: PruneResult, bounds: TraceStoreBounds) -> String {
        let why = result.reasons.map { bounds.describe($0) }
        let verb = result.isDryRun ? "Would remove" : "Removed"
        let remain = result.isDryRun ? "would remain" : "remain"
        let removed = "\(verb) \(Quantity.count(result.removedCount, "exchange")) (\(Quantity.bytes(result.removedBytes)))"
            + (why.isEmpty ? "" : ": " + why.joined(separator: ", "))
        return removed + "; \(Quantity.count(result.remainingCount)) \(remain) (\(Quantity.bytes(result.remainingBytes)))."
    }
}

/// A value for a store's bound typed on the command line: a limit, or `none` for no limit.
struct StoreBound<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The limit; `nil` for none.
    var limit: Value?

    /// `none` (or `unlimited`), else `parse(text)`.
    static func parse(_ text: String, _ parse: (String) throws -> Value) throws -> StoreBound {
        if ["none", "unlimited"].contains(text.lowercased()) { return StoreBound(limit: nil) }
        do {
            return StoreBound(limit: try parse(text))
        } catch var error as ArgumentValueError {
            if !error.expected.hasSuffix("or none") { error.expected += ", or none" }
            throw error
        }
    }
}

extension StoreBound where Value == Int {
    /// A size in megabytes as bytes, at least 1 byte (a store bound of nothing would empty it on every write).
    static func positiveBytes(_ text: String) throws -> Int {
        let bytes = try ByteSizeArgument.megabytes(text).bytes
        guard bytes > 0 else {
            throw ArgumentValueError(expected: "a number of megabytes (MiB) above 0, or none", got: text)
        }
        return bytes
    }
}
