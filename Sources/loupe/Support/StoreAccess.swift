import Foundation
import LoupeTrace

/// Finding and opening trace stores the way every command does.
enum StoreAccess {
    /// The store path: the argument, else the contract's default.
    static func path(_ argument: String?) -> String {
        argument.map(expandTilde) ?? StoreLocation.defaultPath(environment: ProcessInfo.processInfo.environment)
    }

    /// Opens an existing store for reading; a missing or unreadable store is bad input (exit 2).
    static func openForReading(_ argument: String?) throws -> (SQLiteTraceStore, String) {
        let path = path(argument)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure.badInput("no trace store at \(path) (record some with `loupe demo` or `loupe send METHOD URL`)")
        }
        do {
            return (try SQLiteTraceStore(path: path, readOnly: true), path)
        } catch {
            throw CommandFailure.badInput("cannot open \(path): \(error)")
        }
    }

    /// Opens (creating if needed, mode 0600) a store for recording.
    static func openForWriting(_ argument: String?) throws -> (SQLiteTraceStore, String) {
        let path = path(argument)
        do {
            return (try SQLiteTraceStore(path: path), path)
        } catch {
            throw CommandFailure.badInput("cannot open \(path): \(error)")
        }
    }

    static func expandTilde(_ path: String) -> String {
        guard path.hasPrefix("~/") else { return path }
        return FileManager.default.homeDirectoryForCurrentUser.path + path.dropFirst(1)
    }

    /// The exchange `reference` names (full id, unique id prefix, or `#sequence`); anything else is bad input.
    static func exchange(_ reference: String, in store: SQLiteTraceStore, path: String) throws -> TraceExchange {
        let lookup: ExchangeLookup
        do {
            lookup = try store.lookup(reference)
        } catch {
            throw CommandFailure.badInput("cannot read the store: \(error)")
        }
        switch lookup {
        case .found(let exchange):
            return exchange
        case .notFound:
            throw CommandFailure.badInput("no exchange \(reference) in \(path)")
        case .ambiguous(let candidates):
            let ids = candidates.map { "#\($0.sequence ?? 0)" }.joined(separator: ", ")
            throw CommandFailure.badInput("\(reference) matches several exchanges (\(ids)…); give more of the id or a #sequence")
        }
    }
}
