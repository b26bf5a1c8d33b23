/// A named thing the inspector can do; keys map to commands through the ``Keymap``.
package enum InspectorCommand: String, Hashable, Sendable, CaseIterable {
    /// Select the previous row, or scroll the detail up a line.
    case moveUp
    /// Select the next row, or scroll the detail down a line.
    case moveDown
    /// Move a page up.
    case pageUp
    /// Move a page down.
    case pageDown
    /// Jump to the first row or the top of the detail.
    case top
    /// Jump to the last row or the end of the detail.
    case bottom
    /// Open the selected exchange in the detail view.
    case open
    /// Leave the detail view or close the help.
    case back
    /// Send the selected exchange again.
    case replay
    /// Turn following the newest exchange on or off.
    case toggleFollow
    /// Show the key help.
    case help
    /// Leave the inspector.
    case quit
}
