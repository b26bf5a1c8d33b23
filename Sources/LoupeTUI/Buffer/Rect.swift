/// A rectangle of cells inside a ``Buffer``; `x`/`y` are the top-left corner.
public struct Rect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// A rectangle at (`x`, `y`) of `width`×`height` cells (negative sizes count as zero).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The rectangle covering a whole screen of `size`.
    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// One past the last column.
    public var maxX: Int { x + width }
    /// One past the last row.
    public var maxY: Int { y + height }
    /// Whether the rectangle holds no cell.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// The single row `offset` rows down from the top.
    public func row(_ offset: Int) -> Rect { Rect(x: x, y: y + offset, width: width, height: 1) }

    /// The rectangle shrunk by `horizontal` columns and `vertical` rows on each side.
    public func inset(horizontal: Int, vertical: Int) -> Rect {
        Rect(x: x + horizontal, y: y + vertical, width: width - 2 * horizontal, height: height - 2 * vertical)
    }
}
