extension Buffer {
    /// Writes `line`'s spans from column `x`, clipped before `maxX`.
    /// - Returns: The column after the last cell written.
    @discardableResult
    package mutating func write(styled line: StyledLine, x: Int, y: Int, maxX: Int) -> Int {
        var column = x
        for span in line.spans where column < maxX {
            column = write(span.text, x: column, y: y, maxWidth: maxX - column, style: span.style)
        }
        return column
    }
}
