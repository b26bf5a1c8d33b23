extension ListViewport {
    /// Runs a movement command of the keymap (up, down, page up, page down, top, bottom) on any screen that
    /// scrolls, so those keys mean the same thing everywhere.
    /// - Returns: `false` for any other command, which the screen handles itself.
    package mutating func perform(_ command: Command) -> Bool {
        switch command {
        case .moveUp: move(by: -1)
        case .moveDown: move(by: 1)
        case .pageUp: page(by: -1)
        case .pageDown: page(by: 1)
        case .top: moveToStart()
        case .bottom: moveToEnd()
        default: return false
        }
        return true
    }

    /// Scrolls for a mouse wheel: three rows a notch, as terminals scroll.
    package mutating func wheel(_ kind: MouseEvent.Kind) {
        switch kind {
        case .wheelUp: move(by: -3)
        case .wheelDown: move(by: 3)
        case .press: break
        }
    }
}
