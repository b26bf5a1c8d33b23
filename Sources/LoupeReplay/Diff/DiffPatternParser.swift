import LoupeTrace

/// Reads the JSONPath form of a ``DiffPattern`` after its `$`.
struct DiffPatternParser {
    private let text: String
    private let characters: [Character]
    private var index = 1  // after "$"

    init(_ text: String) {
        self.text = text
        characters = Array(text)
    }

    private var current: Character? { index < characters.count ? characters[index] : nil }

    private func failure(_ reason: String) -> DiffPatternError {
        DiffPatternError(pattern: text, reason: "\(reason) at position \(index + 1)")
    }

    mutating func segments() throws(DiffPatternError) -> [DiffPattern.Segment] {
        var segments: [DiffPattern.Segment] = []
        while let character = current {
            switch character {
            case "." where index + 1 < characters.count && characters[index + 1] == ".":
                index += 2
                let selector = current == "[" ? try bracket() : try dotted()
                segments.append(.init(descendant: true, selector: selector))
            case ".":
                index += 1
                segments.append(.init(descendant: false, selector: try dotted()))
            case "[":
                segments.append(.init(descendant: false, selector: try bracket()))
            default:
                throw failure("expected '.' or '['")
            }
        }
        return segments
    }

    /// A key or `*` after a dot: everything up to the next `.` or `[`.
    private mutating func dotted() throws(DiffPatternError) -> DiffPattern.Selector {
        let start = index
        while let character = current, character != ".", character != "[" { index += 1 }
        guard index > start else { throw failure("expected a key or * after '.'") }
        let name = String(characters[start..<index])
        return name == "*" ? .any : .key(name)
    }

    /// `[*]`, `[3]`, `['key']` or `["key"]` (with `\` escaping the quote and itself).
    private mutating func bracket() throws(DiffPatternError) -> DiffPattern.Selector {
        index += 1
        let selector: DiffPattern.Selector
        switch current {
        case "*":
            index += 1
            selector = .any
        case "'", "\"":
            let quote = current
            index += 1
            var key = ""
            while let character = current, character != quote {
                if character == "\\" {
                    index += 1
                    guard let escaped = current else { break }
                    key.append(escaped)
                } else {
                    key.append(character)
                }
                index += 1
            }
            guard current == quote else { throw failure("unterminated quoted key") }
            index += 1
            selector = .key(key)
        default:
            let start = index
            while let character = current, character.isASCII, character.isNumber { index += 1 }
            // At most 18 digits, so the index fits in an Int.
            guard index > start, index - start <= 18, let value = Int(String(characters[start..<index])) else {
                throw failure("expected an index, *, or a quoted key after '['")
            }
            selector = .index(value)
        }
        guard current == "]" else { throw failure("expected ']'") }
        index += 1
        return selector
    }
}
