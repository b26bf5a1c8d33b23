/// A line of text being edited and its cursor, with readline's moves (Ctrl-A/E/U/K/W). A value: the prompt
/// keeps one, tests build one.
package struct TextInput: Hashable, Sendable {
    /// The text, one element per grapheme so the cursor never splits one.
    package private(set) var characters: [Character]
    /// Where the next character goes: 0 … `characters.count`.
    package private(set) var cursor: Int
    /// The most characters a prompt holds: the filter language's own limit, so a paste cannot grow it unbounded.
    package static let limit = 10_000

    /// `text` with the cursor at its end.
    package init(_ text: String = "") {
        characters = Array(text.prefix(Self.limit))
        cursor = characters.count
    }

    /// The text.
    package var text: String { String(characters) }

    /// Types `character` at the cursor (control characters are not text and are dropped).
    package mutating func insert(_ character: Character) {
        guard characters.count < Self.limit, !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return }
        characters.insert(character, at: cursor)
        cursor += 1
    }

    /// Inserts pasted `text` at the cursor in one step: line breaks and tabs become spaces (a prompt is one line),
    /// other control characters (an Esc) are dropped, and what would pass ``limit`` is left out.
    package mutating func insert(pasted text: String) {
        let room = Self.limit - characters.count
        guard room > 0 else { return }
        var inserted: [Character] = []
        inserted.reserveCapacity(min(room, text.count))
        for character in text {
            guard inserted.count < room else { break }
            if character == "\n" || character == "\r" || character == "\r\n" || character == "\t" {
                inserted.append(" ")
            } else if !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                inserted.append(character)
            }
        }
        characters.insert(contentsOf: inserted, at: cursor)
        cursor += inserted.count
    }

    /// Applies an editing command; `false` when `command` does not edit text.
    @discardableResult
    package mutating func apply(_ command: Command) -> Bool {
        switch command {
        case .cursorLeft: cursor = max(0, cursor - 1)
        case .cursorRight: cursor = min(characters.count, cursor + 1)
        case .cursorStart: cursor = 0
        case .cursorEnd: cursor = characters.count
        case .deleteBackward:
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .deleteForward:
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case .deleteToStart:
            characters.removeFirst(cursor)
            cursor = 0
        case .deleteToEnd:
            characters.removeLast(characters.count - cursor)
        case .deleteWord:
            // Readline's unix-word-rubout: spaces before the cursor, then the word.
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// Replaces the text, cursor at the end.
    package mutating func set(_ text: String) {
        self = TextInput(text)
    }

    /// Replaces `range` (grapheme offsets) with `text` and puts the cursor after it.
    package mutating func replace(_ range: Range<Int>, with text: String) {
        let clamped = max(0, min(range.lowerBound, characters.count))..<max(0, min(range.upperBound, characters.count))
        let inserted = Array(text.prefix(max(0, Self.limit - characters.count + clamped.count)))
        characters.replaceSubrange(clamped, with: inserted)
        cursor = clamped.lowerBound + inserted.count
    }
}
