import Foundation
/// The key reference in `Documentation/Keys.md`, written from a ``Keymap`` the same way the `?` help is: every
/// screen's keys with what they do there, the prompt keys, and the commands of the `:` prompt. A test compares
/// the file with ``markdown(_:)`` of ``Keymap/standard``, so the document cannot drift from the keys.
package enum KeyReference {
    /// What each screen is, in the order the reference lists them.
    static let screens: [(KeyContext, String)] = [
        (.exchanges, "The exchanges list (`1`)"),
        (.detail, "An exchange's detail (Enter on a row)"),
        (.diff, "A replay compared with its original (`d`)"),
        (.timeline, "The timeline (`2`)"),
        (.circuits, "The circuit-breaker board (`3`)"),
        (.circuitHistory, "A breaker key's transitions (Enter on the board)"),
        (.metrics, "The metrics (`4`)"),
        (.rules, "Rules and held requests (`5`, with `loupe tui --listen`)"),
        (.agents, "Agents' requests (`6`, from `loupe mcp --allow-actions`)"),
        (.help, "The help (`?`)"),
        (.prompt, "Prompts (`f` filter, `/` search, `:` command)"),
        (.confirm, "A replay's question (`r`, `R`, `e`), or an agent request's (`a` on screen 6)"),
    ]

    /// The whole reference as Markdown.
    package static func markdown(_ keymap: Keymap) -> String {
        var text = """
            # TUI keys

            Every key of `loupe tui`, per screen, as the `?` help lists it: generated from the key table that drives
            the keys, the footer, the help and the `:` prompt (`KeyReference` in `Sources/LoupeTUI/Input`; a test fails
            when this file and the table disagree — `LOUPE_RECORD_KEYS=1 swift test --filter KeyReference` rewrites it).
            Keys can be rebound in `$XDG_CONFIG_HOME/loupe/keys.toml` with the command names below.

            """
        for (context, heading) in screens {
            text += "\n## \(heading)\n\n| key | does | command |\n| --- | --- | --- |\n"
            for binding in keymap.bindings(in: context) {
                let keys = binding.keys.map { "`" + cell($0.label) + "`" }.joined(separator: " ")
                text += "| \(keys) | \(cell(keymap.help(of: binding, in: context))) | `\(binding.command.name)` |\n"
            }
        }
        text += "\n## Commands at the `:` prompt\n\n| command | does |\n| --- | --- |\n"
        for command in Command.allCases where command.runsFromPrompt {
            let name = command.name + (command.argument.map { " " + $0.placeholder } ?? "")
            // A summary that names another command's key names it as the exchanges list binds it.
            text += "| `\(cell(name))` | \(cell(keymap.filling(command.summary, in: .exchanges))) |\n"
        }
        return text
    }

    /// `text` safe inside a table cell: a `|` would end the cell, a backtick the code span.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
