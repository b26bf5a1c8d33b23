/// A grid of ``Cell``s that views draw into and a ``Terminal`` shows (ratatui's `Buffer`).
///
/// All writes clip to the buffer, so a view can never draw outside the screen or crash on a tiny one. Text is
/// measured with `DisplayWidth`: wide graphemes take two cells, and one that would straddle the clip edge
/// becomes a space so columns to its right stay aligned.
public struct Buffer: Hashable, Sendable {
    /// The size in cells.
    public let size: Size
    /// The cells, row by row.
    public private(set) var cells: [Cell]

    /// A blank buffer of `size`.
    public init(size: Size) {
        self.size = size
        self.cells = Array(repeating: .blank, count: size.width * size.height)
    }

    /// Columns.
    public var width: Int { size.width }
    /// Rows.
    public var height: Int { size.height }
    /// The whole buffer as a rectangle.
    package var area: Rect { Rect(size: size) }

    /// The cell at column `x`, row `y` (a blank cell outside the buffer).
    public subscript(x: Int, y: Int) -> Cell {
        guard contains(x: x, y: y) else { return .blank }
        return cells[y * width + x]
    }

    /// Each row as text, full width; continuation cells are left out so wide graphemes read naturally.
    public var lines: [String] {
        (0..<height).map { y in
            String(cells[(y * width)..<((y + 1) * width)].lazy.filter { !$0.isContinuation }.map(\.character))
        }
    }

    /// All rows with trailing spaces removed, joined by newlines: handy in test failures.
    public var text: String {
        lines.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// Writes `text` at (`x`, `y`) in `style`, clipped to the buffer and to `maxWidth` columns.
    /// - Returns: The column after the last cell written.
    @discardableResult
    package mutating func write(_ text: some StringProtocol, x: Int, y: Int, maxWidth: Int? = nil, style: Style = .normal) -> Int {
        guard y >= 0, y < height else { return x }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        var column = x
        for character in text {
            let (shown, cellWidth) = DisplayWidth.visible(character)
            guard cellWidth > 0 else { continue }
            if column + cellWidth > limit {
                if column >= 0, column < limit { put(Cell(" ", style: style), x: column, y: y, wide: false) }
                return min(column + 1, limit)
            }
            if column >= 0 {
                put(Cell(shown, style: style), x: column, y: y, wide: cellWidth == 2)
            } else if column + cellWidth > 0 {
                put(Cell(" ", style: style), x: 0, y: y, wide: false)
            }
            column += cellWidth
        }
        return column
    }

    /// Writes `text` so that it ends at column `maxX` (exclusive) on row `y`.
    /// - Returns: The column where the text starts.
    @discardableResult
    package mutating func writeRightAligned(_ text: some StringProtocol, maxX: Int, y: Int, style: Style = .normal) -> Int {
        let start = maxX - DisplayWidth.of(text)
        write(text, x: start, y: y, maxWidth: maxX - start, style: style)
        return start
    }

    /// Fills `rect` with `character` in `style`.
    package mutating func fill(_ rect: Rect, with character: Character = " ", style: Style = .normal) {
        for y in max(0, rect.y)..<min(height, rect.maxY) where rect.x < width {
            var x = max(0, rect.x)
            while x < min(width, rect.maxX) {
                x = write(String(character), x: x, y: y, maxWidth: min(width, rect.maxX) - x, style: style)
            }
        }
    }

    /// Gives every cell in `rect` the style `style`, keeping its grapheme (how a selected row is highlighted).
    package mutating func setStyle(_ style: Style, in rect: Rect) {
        for y in max(0, rect.y)..<min(height, rect.maxY) {
            for x in max(0, rect.x)..<min(width, rect.maxX) {
                cells[y * width + x].style = style
            }
        }
    }

    private func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    /// Places a cell, blanking the other half of any wide grapheme it overwrites.
    private mutating func put(_ cell: Cell, x: Int, y: Int, wide: Bool) {
        let fits = wide ? x + 1 < width : x < width
        guard contains(x: x, y: y) else { return }
        guard fits else {
            clearOverlap(x: x, y: y)
            cells[y * width + x] = Cell(" ", style: cell.style)
            return
        }
        clearOverlap(x: x, y: y)
        if wide { clearOverlap(x: x + 1, y: y) }
        cells[y * width + x] = cell
        if wide { cells[y * width + x + 1] = .continuation(style: cell.style) }
    }

    private mutating func clearOverlap(x: Int, y: Int) {
        let index = y * width + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = Cell(" ", style: cells[index - 1].style)
            cells[index] = Cell(" ", style: cells[index].style)
        } else if x + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        }
    }
}
