import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats

/// Finding and opening trace stores the way every command does.
enum StoreAccess {
    /// The store path: the argument, else the contract's default.
    static func path(_ argument: String?) -> String {
        expandTilde(argument ?? StoreLocation.defaultPath(environment: ProcessInfo.processInfo.environment))
    }

    /// Closes `store` and deletes its file with SQLite's side files: for a store a command created and then had
    /// nothing to put in (a refused import).
    static func remove(_ store: SQLiteTraceStore, path: String) {
        try? store.close()
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Opens an existing store read-only: nothing is created, migrated, pruned or chmodded, and the database is
    /// never written. A missing or unusable store is bad input (exit 2).
    static func openForReading(_ argument: String?) throws -> (SQLiteTraceStore, String) {
        let path = path(argument)
        do {
            return (try SQLiteTraceStore(path: path, readOnly: true), path)
        } catch let error as TraceStoreError where error.code == .notFound {
            throw CommandFailure.badInput("no trace store at \(path) (record some with `loupe demo` or `loupe send METHOD URL`)")
        } catch {
            throw failure(error, path: path)
        }
    }

    /// Opens a store read-only for the TUI. When nothing is at the path, a new empty store is created first
    /// (complete, 0600; an existing file is never touched), so a recording started later appears live.
    static func openForViewing(_ argument: String?) throws -> (SQLiteTraceStore, String) {
        let path = path(argument)
        do {
            try SQLiteTraceStore.createIfMissing(path: path)
            return (try SQLiteTraceStore(path: path, readOnly: true), path)
        } catch {
            throw failure(error, path: path)
        }
    }

    /// Opens (creating if needed, mode 0600) a store for recording. It applies the store's own bounds; with
    /// `autoPrune` false it prunes nothing by itself (for `loupe prune`, which prunes explicitly).
    static func openForWriting(_ argument: String?, autoPrune: Bool = true) throws -> (SQLiteTraceStore, String) {
        let path = path(argument)
        do {
            return (try SQLiteTraceStore(path: path, bounds: autoPrune ? .default : nil), path)
        } catch {
            throw failure(error, path: path)
        }
    }

    /// Says on stderr what `store`'s automatic prunes removed since it opened, if anything: one line, for every
    /// command that records (`send`, `demo`, `import`, the TUI's replays), so no exchange vanishes unsaid.
    /// It first applies the store's bounds once more, so a command leaves the store within them when it ends.
    static func reportPrunes(_ store: SQLiteTraceStore, path: String) {
        store.applyOwnBounds()
        guard let notice = store.automaticPrunes else { return }
        StandardStreams.error(pruneLine(notice, path: path) + "\n")
    }

    /// `loupe: PATH: removed the oldest 12 exchanges (3.1 KiB), over 10 exchanges, to keep the store within its
    /// bounds (…; change them with …)`.
    static func pruneLine(_ notice: PruneNotice, path: String) -> String {
        "loupe: \(TerminalText.line(path)): removed the oldest \(notice.amount), \(notice.why), to keep the store "
            + "within its bounds (\(notice.bounds); change them with `loupe prune --set-max-bytes/--set-max-age/--set-max-count`)"
    }

    /// A store error as one line: the store's own message names the path; anything else gets it added.
    static func failure(_ error: any Error, path: String) -> CommandFailure {
        if let error = error as? TraceStoreError { return CommandFailure.badInput(TerminalText.line(error.description)) }
        return CommandFailure.badInput("cannot open \(TerminalText.line(path)): \(error)")
    }

    /// A failure while reading a store as one line: a filter the database refused is a filter problem, damage
    /// and other store errors say what they are, never a bare "cannot read".
    static func readFailure(_ error: any Error) -> CommandFailure {
        switch error {
        case let error as TraceFilterError: CommandFailure.badInput("bad filter: \(TerminalText.line(String(describing: error)))")
        case let error as TraceStoreError: CommandFailure.badInput(TerminalText.line(error.description))
        default: CommandFailure.badInput("cannot read the store: \(TerminalText.line(String(describing: error)))")
        }
    }

    /// `~` and `~/…` under `$HOME`, as a shell expands them (the passwd entry only when `HOME` is unset or empty).
    static func expandTilde(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + path.dropFirst(1)
    }

    /// The exchange `reference` names (full id, unique id prefix, or `#sequence`); anything else is bad input.
    static func exchange(_ reference: String, in store: SQLiteTraceStore, path: String) throws -> TraceExchange {
        let lookup: ExchangeLookup
        do {
            lookup = try store.lookup(reference)
        } catch {
            throw StoreAccess.readFailure(error)
        }
        switch lookup {
        case .found(let exchange):
            return exchange
        case .notFound:
            throw CommandFailure.badInput("no exchange \(reference) in \(path)")
        case .ambiguous(let candidates):
            let ids = candidates.map { "#\($0.sequence)" }.joined(separator: ", ")
            throw CommandFailure.badInput("\(reference) matches several exchanges (\(ids)…); give more of the id or a #sequence")
        }
    }
}
