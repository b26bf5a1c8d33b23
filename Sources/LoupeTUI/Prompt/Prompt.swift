/// An open prompt: its text, its history walk, and what is wrong with the text so far.
package struct Prompt: Hashable, Sendable {
    package var kind: PromptKind
    package var input: TextInput
    /// Earlier entries, oldest first (from the history file).
    package var history: [String]
    /// Where ↑/↓ stand in ``history``; `nil` while editing the draft.
    package var historyIndex: Int?
    /// The text typed before walking the history, restored by ↓ past the newest entry.
    package var draft = ""
    /// A problem with the text, and the character offset it points at (the filter's parse error).
    package var problem: PromptProblem?
    /// Completions offered by the last Tab, when more than one fits.
    package var completions: [String] = []
    /// What a well-formed line will do, when that is worth saying (`repeat 10 times, 2 at once`).
    package var hint: String?
    /// The text changed since ``problem`` and ``hint`` were worked out: they are brought up to date once before
    /// the next frame, not on every key (a paste of thousands of characters parsed the line thousands of times).
    package var needsCheck = false

    package init(_ kind: PromptKind, text: String = "", history: [String] = []) {
        self.kind = kind
        self.input = TextInput(text)
        self.history = history
    }

    /// ↑: the previous (older) history entry.
    package mutating func olderEntry() {
        guard !history.isEmpty else { return }
        if historyIndex == nil { draft = input.text }
        let index = max(0, (historyIndex ?? history.count) - 1)
        historyIndex = index
        input.set(history[index])
    }

    /// ↓: the next (newer) entry, then the draft.
    package mutating func newerEntry() {
        guard let index = historyIndex else { return }
        if index + 1 < history.count {
            historyIndex = index + 1
            input.set(history[index + 1])
        } else {
            historyIndex = nil
            input.set(draft)
        }
    }
}

/// What is wrong with a prompt's text: a message, and (for parse errors) the offset to mark under the input.
package struct PromptProblem: Error, Hashable, Sendable {
    package var message: String
    /// Offset of the character the problem is at, from 0.
    package var offset: Int?

    package init(_ message: String, offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }
}
