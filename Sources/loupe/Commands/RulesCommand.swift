import ArgumentParser
import Foundation
import LoupeConfig
import LoupeTrace
import LoupeRules
import LoupeRulesFile

/// `loupe rules check FILE`: whether a rules file (`LOUPE_RULES`) is valid, before an app reads it.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules", abstract: "Work with rules files (mocks, faults, rewrites, breakpoints).",
        discussion: "The schema is in Documentation/Rules.md; an app reads a rules file from $LOUPE_RULES.",
        subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "Validate a rules file: one line with its rules, or one line saying where it is wrong (exit 2).")

        @Argument(help: ArgumentHelp("The rules file (TOML).", valueName: "FILE"))
        var file: String

        func run() async throws {
            let rules: [Rule]
            do {
                rules = try RulesFile.read(file)
            } catch {
                throw CommandFailure.badInput("rules file \(error.message(file: file))")
            }
            let names = rules.map { "\($0.name) (\($0.action.word))" }.joined(separator: ", ")
            // Names come from the file: an escape in one must not retitle or clear the terminal.
            print(TerminalText.line("\(file): \(rules.count) rule\(rules.count == 1 ? "" : "s")\(rules.isEmpty ? "" : ": " + names)"))
        }
    }
}
