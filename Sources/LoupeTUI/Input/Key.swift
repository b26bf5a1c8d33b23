/// One key press (or a terminal resize) as a ``Terminal`` reports it.
///
/// Printable keys are `.char`; a character literal is a key too, so `screen.press("j", .enter)` reads naturally.
public enum Key: Hashable, Sendable, ExpressibleByExtendedGraphemeClusterLiteral {
    /// A printable character.
    case char(Character)
    /// Control plus a letter (`.ctrl("l")` is Ctrl-L).
    case ctrl(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab, backTab
    /// The terminal changed size; read the new size from the screen.
    case resize
    /// A click or a wheel turn.
    case mouse(MouseEvent)
    /// Text the terminal delivered as a bracketed paste (between `ESC[200~` and `ESC[201~`): always text, never
    /// keys, so an Esc, a `y` or an Enter inside it runs nothing.
    case paste(String)

    public init(extendedGraphemeClusterLiteral value: Character) {
        self = .char(value)
    }

    /// How the key is written in the footer and the help screen.
    public var label: String {
        switch self {
        case .char(" "): "Space"
        case .char(let character): String(character)
        case .ctrl(let character): "^" + character.uppercased()
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Bksp"
        case .delete: "Del"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .resize: "resize"
        case .mouse: "mouse"
        case .paste: "paste"
        }
    }
}
