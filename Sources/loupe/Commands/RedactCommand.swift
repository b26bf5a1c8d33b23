import ArgumentParser
import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats

/// `loupe redact STORE|FILE.har [--redact-header N]… [--redact-query N]… [--redact-field N]…`: applies today's
/// redaction (the default lists plus the names given, by name and by value) to an existing recording, in place.
///
/// A store is rewritten in one transaction, then vacuumed and checkpointed so no old copy stays in free pages or
/// the `-wal` file. A HAR file is written to a temporary file in the same folder and renamed over the original,
/// so a crash leaves the old file or the new one, never half of one.
struct RedactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Redact secrets from an existing trace store or HAR file, in place.",
        discussion: """
            Applies the default redaction (credential headers, query items and JSON/form fields, then every value \
            removed scrubbed wherever else it appears) plus the names given. Use it after adding a name, or on \
            recordings made by an older Loupe. Old copies are removed from the store's free pages and -wal file.
            """)

    @Argument(help: ArgumentHelp("The trace store or HAR file to redact.", valueName: "STORE|FILE.har"))
    var file: String

    @OptionGroup(title: "Redaction")
    var redaction: RedactionFlags

    func run() async throws {
        let path = try InputFile.regular(StoreAccess.expandTilde(file), role: "recording")
        if try Self.isSQLite(path) {
            try redactStore(path)
        } else {
            try redactHAR(path)
        }
    }

    private func redactStore(_ path: String) throws {
        let store: SQLiteTraceStore
        do {
            // No bounds: redacting must not prune anything.
            store = try SQLiteTraceStore(path: path, bounds: nil)
        } catch {
            throw StoreAccess.failure(error, path: path)
        }
        let result: StoreRedactionResult
        do {
            result = try store.redactStored(with: redaction.policy)
            try store.close()
        } catch {
            throw CommandFailure.badInput("cannot redact \(TerminalText.line(path)): \(error)")
        }
        print(TerminalText.line("Redacted \(result.changed) of \(Quantity.count(result.examined, "exchange")) in \(path)"))
        guard result.isComplete else {
            throw CommandFailure.failed(
                "another process has \(TerminalText.line(path)) open, so old copies may remain in its -wal file; "
                    + "run `loupe redact` again once it has closed")
        }
    }

    /// Streams the file through ``HARRedactor`` into a hidden file beside it (an entry at a time, so memory does
    /// not grow with the file), renamed over it only when something changed.
    private func redactHAR(_ path: String) throws {
        guard let input = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure.badInput("cannot read \(TerminalText.line(path))")
        }
        defer { try? input.close() }
        let temporary = try Self.createTemporary(beside: path)
        var installed = false
        defer { if !installed { try? FileManager.default.removeItem(atPath: temporary.path) } }
        let result: HARRedactor.Result
        do {
            let output = try FileHandle(forWritingTo: temporary)
            defer { try? output.close() }
            do {
                result = try HARRedactor.redact(file: input, policy: redaction.policy) { try output.write(contentsOf: $0) }
            } catch let failure as HARRedactor.Failure {
                throw CommandFailure.badInput("\(TerminalText.line(path)): \(failure)")
            }
            if result.changed { try output.synchronize() }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure.badInput("cannot write \(TerminalText.line(path)): \(error.localizedDescription)")
        }
        if result.changed {
            guard rename(temporary.path, path) == 0 else {
                throw CommandFailure.badInput("cannot write \(TerminalText.line(path)): \(String(cString: strerror(errno)))")
            }
            installed = true
        }
        print(TerminalText.line("Redacted \(result.changedEntries) of \(result.entryCount) entr\(result.entryCount == 1 ? "y" : "ies") in \(path)"))
    }

    /// Whether the file starts with SQLite's header (anything else is taken for a HAR file).
    static func isSQLite(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure.badInput("cannot read \(TerminalText.line(path))")
        }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: 16)) ?? Data()
        return prefix == Data("SQLite format 3\u{0}".utf8)
    }

    /// An empty hidden file beside `path` with its mode, to be renamed over it.
    static func createTemporary(beside path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).redact-\(UUID().uuidString)")
        let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o600
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: mode]) else {
            throw CommandFailure.badInput("cannot write \(TerminalText.line(path)): no permission to create a file beside it")
        }
        return temporary
    }
}
