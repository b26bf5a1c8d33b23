import ArgumentParser
import Foundation
@testable import loupe
import Testing

/// The command-line reference and the filter language's table of terms are written out from the code that prints
/// `--help`, so the documents cannot drift from it: these fail the moment a flag, a help text or a filter term
/// changes without them (`LOUPE_RECORD_DOCS=1` rewrites both; review the diff).
@Suite struct DocumentationTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Documentation")
    static let recording = ProcessInfo.processInfo.environment["LOUPE_RECORD_DOCS"] == "1"

    /// Every subcommand's `--help`, as a terminal 100 columns wide shows it.
    static func reference() -> String {
        var text = """
            # Command-line reference

            Generated from the commands' own `--help` (`LOUPE_RECORD_DOCS=1 swift test --filter DocumentationTests`
            writes it again). The guide, with exit codes, ranges and examples, is [CommandLine.md](CommandLine.md).

            ```
            \(LoupeCommand.helpMessage(columns: 100))
            ```

            """
        for command in LoupeCommand.configuration.subcommands {
            let name = command.configuration.commandName ?? "\(command)"
            text += "\n## `loupe \(name)`\n\n```\n\(LoupeCommand.helpMessage(for: command, columns: 100))\n```\n"
        }
        return text
    }

    static let termsStart = "<!-- filter terms: generated from FilterOption.help -->"
    static let termsEnd = "<!-- end of filter terms -->"

    /// `Filters.md` with its table of terms replaced by the one `--help` prints.
    static func filters(_ page: String) -> String? {
        guard let start = page.range(of: termsStart), let end = page.range(of: termsEnd) else { return nil }
        return String(page[..<start.upperBound]) + "\n```\n" + FilterOption.help + "\n```\n" + String(page[end.lowerBound...])
    }

    @Test func theReferenceIsEveryCommandsHelp() throws {
        let file = Self.folder.appendingPathComponent("CLI-Reference.md")
        let generated = Self.reference()
        if Self.recording { try generated.write(to: file, atomically: true, encoding: .utf8) }
        let stored = try String(contentsOf: file, encoding: .utf8)
        #expect(stored == generated, "Documentation/CLI-Reference.md differs from --help: run with LOUPE_RECORD_DOCS=1")
        for command in ["send", "replay", "listen", "export", "import", "tui", "demo", "redact", "prune"] {
            #expect(stored.contains("## `loupe \(command)`"), "\(command)")
        }
    }

    @Test func theFilterPageHasEveryTermHelpPrints() throws {
        let file = Self.folder.appendingPathComponent("Filters.md")
        let page = try String(contentsOf: file, encoding: .utf8)
        let generated = try #require(Self.filters(page), "Filters.md lost its generated-section markers")
        if Self.recording { try generated.write(to: file, atomically: true, encoding: .utf8) }
        #expect(page == generated, "Documentation/Filters.md's terms differ from --help: run with LOUPE_RECORD_DOCS=1")
        for term in ["~m", "~c", "~d", "~u", "~h", "~b", "~op", "~dur", "~att", "~cb", "~e", "~replay", "~src", "~rule"] {
            #expect(FilterOption.help.contains("  \(term) "), "\(term) is missing from the help's table")
        }
    }
}
