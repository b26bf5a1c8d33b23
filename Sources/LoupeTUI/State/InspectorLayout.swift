/// Where each part of the inspector goes on a screen of a given size; shared by update (page sizes, scrolling)
/// and rendering so the two always agree.
package struct InspectorLayout: Hashable, Sendable {
    /// Below this the inspector shows only a "terminal too small" line.
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
    /// Between the title bar and the status line.
    package var content: Rect { Rect(x: 0, y: 1, width: size.width, height: size.height - 3) }
    /// The list's column headings.
    package var listHeader: Rect { content.row(0) }
    /// The list's rows.
    package var listRows: Rect { Rect(x: 0, y: content.y + 1, width: size.width, height: content.height - 1) }
    /// The status message line.
    package var statusLine: Rect { Rect(x: 0, y: size.height - 2, width: size.width, height: 1) }
    /// The key hints.
    package var footer: Rect { Rect(x: 0, y: size.height - 1, width: size.width, height: 1) }

    /// Rows one list page moves (at least 1).
    package var listPage: Int { max(1, listRows.height) }
    /// Lines one detail page moves (at least 1).
    package var detailPage: Int { max(1, content.height) }
}
