/// One terminal cell: a grapheme and the role it is drawn with.
///
/// A wide grapheme (CJK, emoji) sits in its first cell; the cell to its right is a *continuation* that screens
/// skip and text dumps leave out, so `Buffer.lines` reads like the terminal looks.
public struct Cell: Hashable, Sendable {
    /// The grapheme shown (a space for an empty cell).
    public var character: Character
    /// What the cell is for.
    public var style: Style
    /// Whether this cell is the right half of the wide grapheme to its left.
    public var isContinuation: Bool

    /// A cell holding `character` drawn as `style`.
    public init(_ character: Character = " ", style: Style = .normal) {
        self.character = character
        self.style = style
        self.isContinuation = false
    }

    /// An empty cell.
    public static let blank = Cell()

    /// The right half of a wide grapheme.
    static func continuation(style: Style) -> Cell {
        var cell = Cell(" ", style: style)
        cell.isContinuation = true
        return cell
    }
}
