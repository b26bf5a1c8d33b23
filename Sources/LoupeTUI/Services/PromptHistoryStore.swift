/// Where prompt history lives: the entries typed at the filter, search, command and export prompts, per kind.
///
/// Recording never fails from the caller's point of view: a history that cannot be written is a lost
/// convenience, never an error in the TUI.
package protocol PromptHistoryStore: Sendable {
    /// The entries recorded for `kind` (`filter`, `search`, `command`, `export`), oldest first.
    func entries(for kind: String) -> [String]
    /// Adds `entry` as the newest for `kind`, moving it there if it was already recorded.
    func record(_ entry: String, for kind: String)
}

/// The rules every history follows: what is worth keeping and how much of it.
package enum PromptHistoryRules {
    /// Entries kept per kind; older ones drop off.
    package static let maximumEntries = 500
    /// The longest entry kept, in UTF-8 bytes; a pasted body is not a filter worth recalling.
    package static let maximumEntryLength = 4096
    /// The kinds the TUI uses.
    package static let kinds = ["filter", "search", "command", "export"]

    /// Whether `entry` can be recorded: not empty or blank, short, and one line without control characters, so
    /// that the one-entry-per-line file stays readable and nothing recalled can drive the terminal.
    package static func isRecordable(_ entry: String) -> Bool {
        entry.utf8.count <= maximumEntryLength
            && entry.contains(where: { !$0.isWhitespace })
            && !entry.unicodeScalars.contains(where: isForbidden)
    }

    /// Whether `kind` is a plain name (`[a-z0-9-]`, at most 32 characters), safe as a file name.
    package static func isValidKind(_ kind: String) -> Bool {
        (1...32).contains(kind.utf8.count)
            && kind.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// `entries` with `entry` as the newest, an older copy removed, and only the newest ``maximumEntries`` kept.
    package static func appending(_ entry: String, to entries: [String]) -> [String] {
        var result = entries.filter { $0 != entry }
        result.append(entry)
        return Array(result.suffix(maximumEntries))
    }

    /// C0 and C1 controls, DEL, and the line and paragraph separators a terminal or editor may break lines at.
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
