/// A named thing the TUI can do. Keys map to commands through the ``Keymap``; the `:` prompt runs them by
/// ``name`` (mitmproxy's commands, lazygit's keybinding config). One list, so the help, the footer, the prompt's
/// completion and a user's keys.toml all speak the same names.
package enum Command: String, Hashable, Sendable, CaseIterable {
    case moveUp, moveDown, pageUp, pageDown, top, bottom
    case open, back, quit, help, commandPrompt
    case filter, search, searchNext, searchPrevious
    case sortNext, reverse, sort
    case toggleFollow, toggleSource
    case mark, showMarked, unmarkAll
    case export, copyCurl
    case replay, repeatReplay, editReplay, diff
    case nextTab, previousTab, tab, cycleBody
    case exchanges, timeline, circuits, metrics
    case zoomIn, zoomOut, panLeft, panRight
    case cycleWindow, exchangesForKey
    // Rules (screen 5) and rules made from an exchange.
    case rules, toggleRule, deleteRule, editRule, continueHeld, abortHeld, continueAll, newRule
    case link
    // Agents' requests (screen 6): each held until a person approves or refuses it here.
    case agents, approveAction, refuseAction
    // Text input, in prompts.
    case submit, cancel, complete, historyPrevious, historyNext
    case cursorLeft, cursorRight, cursorStart, cursorEnd
    case deleteBackward, deleteForward, deleteToStart, deleteToEnd, deleteWord
    // The answer to a replay's question.
    case confirmReplay
    // `loupe tui --serve`: every recorded sequence starts over.
    case resetScenarios

    /// The name the `:` prompt and keys.toml use (`sort-next`): the case name in kebab case.
    package var name: String {
        var name = ""
        for character in rawValue {
            if character.isUppercase {
                name += "-" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }

    /// The command called `name`, as ``name`` spells it (or as it was spelled before a rename, in a user's keys.toml
    /// or at the `:` prompt).
    package init?(name: String) {
        guard let command = Self.allCases.first(where: { $0.name == name }) ?? Self.formerNames[name] else { return nil }
        self = command
    }

    /// Commands a keys.toml or a habit may still name by a former name (still read, never offered).
    package static let formerNames: [String: Command] = ["flows": .exchanges, "flows-for-key": .exchangesForKey]  // former names

    /// What the command does, for the help screen and the prompt's completion.
    package var summary: String { CommandInfo.summary[self] ?? name }

    /// What the command takes after its name at the `:` prompt, if anything (`KEY`, `EXPR`).
    package var argument: CommandArgument? { CommandInfo.argument[self] }

    /// Whether the `:` prompt runs the command: not a prompt's text editing, nor the answer to a question that
    /// only a key gives.
    package var runsFromPrompt: Bool { !isTextEditing && self != .confirmReplay }

    /// Whether the command edits a prompt's text: those only make sense while a prompt is open.
    package var isTextEditing: Bool {
        switch self {
        case .submit, .cancel, .complete, .historyPrevious, .historyNext, .cursorLeft, .cursorRight, .cursorStart,
             .cursorEnd, .deleteBackward, .deleteForward, .deleteToStart, .deleteToEnd, .deleteWord:
            true
        default:
            false
        }
    }
}
