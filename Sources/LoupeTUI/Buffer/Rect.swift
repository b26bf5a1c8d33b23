/// A rectangle of cells inside a ``Buffer``; `x`/`y` are the top-left corner.
package struct Rect: Hashable, Sendable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    /// A rectangle at (`x`, `y`) of `width`×`height` cells (negative sizes count as zero).
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The rectangle covering a whole screen of `size`.
    package init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// One past the last column.
    package var maxX: Int { x + width }
    /// One past the last row.
    package var maxY: Int { y + height }
    /// Whether the rectangle holds no cell.
    package var isEmpty: Bool { width == 0 || height == 0 }

    /// The single row `offset` rows down from the top.
    package func row(_ offset: Int) -> Rect { Rect(x: x, y: y + offset, width: width, height: 1) }

    /// The rectangle shrunk by `horizontal` columns and `vertical` rows on each side.
    package func inset(horizontal: Int, vertical: Int) -> Rect {
        Rect(x: x + horizontal, y: y + vertical, width: width - 2 * horizontal, height: height - 2 * vertical)
    }
}
