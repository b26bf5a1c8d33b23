/// Where each part of the TUI goes on a screen of a given size; shared by update (page sizes, clicks)
/// and rendering so the two always agree.
package struct TUILayout: Hashable, Sendable {
    /// Below this the TUI shows only a "terminal too small" line.
    package static let minimumSize = Size(width: 40, height: 8)

    /// The screen size.
    package var size: Size

    /// The layout for a screen of `size`.
    package init(size: Size) {
        self.size = size
    }

    /// Whether the screen is below ``minimumSize``.
    package var isTooSmall: Bool {
        size.width < Self.minimumSize.width || size.height < Self.minimumSize.height
    }

    /// The title bar.
    package var titleBar: Rect { Rect(x: 0, y: 0, width: size.width, height: 1) }
    /// Where screens draw: between the title bar and the status line.
    package var content: Rect { Rect(x: 0, y: 1, width: size.width, height: size.height - 3) }
    /// The status message line, where prompts open too.
    package var statusLine: Rect { Rect(x: 0, y: size.height - 2, width: size.width, height: 1) }
    /// The key hints, or the prompt's error and completions.
    package var footer: Rect { Rect(x: 0, y: size.height - 1, width: size.width, height: 1) }
}
