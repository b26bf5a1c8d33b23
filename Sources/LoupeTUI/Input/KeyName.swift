/// Keys as users write them in `keys.toml` and at the `:` prompt: `f`, `F`, `/`, `space`, `enter`, `esc`,
/// `shift-tab`, `pgdn`, `ctrl-f`.
///
/// A single character stands for itself and is case-sensitive (`f` and `F` are different keys). Longer names and
/// the `ctrl-` prefix are case-insensitive (`Enter`, `CTRL-F`), and `^f` is accepted for `ctrl-f` as the help
/// screen writes it. ``name`` gives the canonical spelling back, so `Key(name: key.name!) == key`.
extension Key {
    /// The key `name` spells, or `nil` when it is not a key name.
    package init?(name: String) {
        if name.count == 1, let character = name.first {
            guard Self.isBindable(character) else { return nil }
            self = .char(character)
            return
        }
        let lowered = name.lowercased()
        if let named = Self.named[lowered] {
            self = named
            return
        }
        for prefix in ["ctrl-", "^"] where lowered.hasPrefix(prefix) {
            let rest = lowered.dropFirst(prefix.count)
            guard rest.count == 1, let letter = rest.first, letter.isASCII, letter.isLetter else { return nil }
            self = .ctrl(letter)
            return
        }
        return nil
    }

    /// The canonical name (`space`, `enter`, `ctrl-f`, `F`), or `nil` for events that are not keys a user binds
    /// (a resize, or a control character arriving as a `.char`).
    package var name: String? {
        switch self {
        case .char(" "): return "space"
        case .char(let character): return Self.isBindable(character) ? String(character) : nil
        case .ctrl(let character):
            let letter = Character(character.lowercased())
            return letter.isASCII && letter.isLetter ? "ctrl-" + String(letter) : nil
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .pageUp: return "pgup"
        case .pageDown: return "pgdn"
        case .home: return "home"
        case .end: return "end"
        case .enter: return "enter"
        case .escape: return "esc"
        case .backspace: return "backspace"
        case .delete: return "delete"
        case .tab: return "tab"
        case .backTab: return "shift-tab"
        // `.resize`, and whatever the screen reports later (mouse events), are not keys to bind.
        default: return nil
        }
    }

    /// Every multi-letter name, aliases included, lowercased.
    package static let named: [String: Key] = [
        "space": .char(" "), "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab,
        "shift-tab": .backTab, "backtab": .backTab, "backspace": .backspace, "delete": .delete, "del": .delete,
        "up": .up, "down": .down, "left": .left, "right": .right, "pgup": .pageUp, "pageup": .pageUp,
        "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
    ]

    /// A printable character other than whitespace (a space is written `space`, so a stray one in a file is
    /// an error rather than a binding nobody sees).
    private static func isBindable(_ character: Character) -> Bool {
        !character.unicodeScalars.contains {
            $0.properties.generalCategory == .control || $0.properties.isWhitespace
                || $0.properties.generalCategory == .format
        }
    }
}
