import Foundation
import LoupeTrace
import Synchronization

/// Prompt history kept across runs: `$XDG_STATE_HOME/loupe/history/<kind>` (`~/.local/state/loupe/history/<kind>`).
///
/// Each file holds one entry per line, oldest first, each entry once, at most
/// ``PromptHistoryRules/maximumEntries``. A record reads the file, moves the entry to the end and writes the file
/// anew (a temporary file renamed over it), so two TUIs recording at once lose at most one entry and never
/// corrupt the file. Folders it creates are 0700 and files 0600: filters and searches name hosts and values from
/// recorded traffic. Nothing here throws: a failure is kept in ``lastError`` and the TUI carries on.
package final class FilePromptHistory: PromptHistoryStore {
    /// The folder holding one file per kind.
    package let folder: String
    private let state = Mutex<String?>(nil)

    /// The most recent failure to read or write, as one line; `nil` when none has happened.
    package var lastError: String? { state.withLock { $0 } }

    /// A history in `folder` (created when first written).
    package init(folder: String) {
        self.folder = folder
    }

    /// The history in the XDG state folder.
    package convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(folder: Self.defaultFolder(environment: environment))
    }

    /// `$XDG_STATE_HOME/loupe/history`, else `~/.local/state/loupe/history`.
    package static func defaultFolder(environment: [String: String]) -> String {
        XDGDirectories.join(XDGDirectories.stateHome(environment: environment), "loupe/history")
    }

    package func entries(for kind: String) -> [String] {
        guard let path = path(for: kind) else { return [] }
        do {
            return try read(path)
        } catch {
            fail(error)
            return []
        }
    }

    package func record(_ entry: String, for kind: String) {
        guard PromptHistoryRules.isRecordable(entry), let path = path(for: kind) else { return }
        // One record at a time in this process; the read and the write must not interleave with another's.
        state.withLock { lastError in
            do {
                let entries = PromptHistoryRules.appending(entry, to: try read(path))
                try HistoryFolder.create(folder)
                let text = entries.joined(separator: "\n") + "\n"
                try AtomicFile.write(to: path, replacing: true) { output in try output.write(Data(text.utf8)) }
            } catch {
                lastError = Self.describe(error)
            }
        }
    }

    // MARK: Files

    /// The file for `kind`, or `nil` (and an error noted) when `kind` is not a plain name.
    private func path(for kind: String) -> String? {
        guard PromptHistoryRules.isValidKind(kind) else {
            state.withLock { $0 = "not a history kind: \(TerminalText.line(kind.prefix(40)))" }
            return nil
        }
        return XDGDirectories.join(folder, kind)
    }

    /// The entries in the file at `path`, keeping only lines that could have been recorded; `[]` when missing.
    private func read(_ path: String) throws -> [String] {
        guard let data = try HistoryFolder.tail(of: path, limit: Self.readLimit) else { return [] }
        var entries: [String] = []
        for bytes in data.split(separator: UInt8(ascii: "\n")) {
            guard let line = String(validating: bytes, as: UTF8.self), PromptHistoryRules.isRecordable(line) else {
                continue
            }
            entries = PromptHistoryRules.appending(line, to: entries)
        }
        return entries
    }

    /// Enough bytes for a full history of the longest entries; a larger file (edited by hand) is read from its end.
    private static let readLimit = PromptHistoryRules.maximumEntries * (PromptHistoryRules.maximumEntryLength + 1)

    private func fail(_ error: any Error) {
        state.withLock { $0 = Self.describe(error) }
    }

    private static func describe(_ error: any Error) -> String {
        TerminalText.line(String(describing: error))
    }
}
