/// The bottom line: key hints for the current context, straight from the ``Keymap``.
struct FooterBar {
    let keymap: Keymap
    let context: KeyContext

    /// Hints kept when the line is too narrow for all of them, in this order: `? help` is the one key a
    /// newcomer needs (it lists the rest), then the way out.
    static let kept: [Command] = [.help, .back, .quit]

    func render(in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, style: .footerText)
        let hints = keymap.footerBindings(in: context).map { (binding: $0, width: Self.width(of: $0)) }
        // Narrow: drop hints from the end of the table, never the kept ones (while they fit), keeping the order.
        var shown = hints.indices.map { _ in true }
        var width = hints.reduce(0) { $0 + $1.width }
        let room = area.width + 1  // the last hint's trailing spaces may hang past the edge, as one did before
        let droppable = hints.indices.sorted { (rank(hints[$0].binding), -$0) < (rank(hints[$1].binding), -$1) }
        for index in droppable where width > room {
            shown[index] = false
            width -= hints[index].width
        }
        var x = area.x
        for (index, hint) in hints.enumerated() where shown[index] {
            let key = hint.binding.footerKeyLabel
            guard x + hint.width <= area.maxX + 1 else { break }
            x = buffer.write(key, x: x, y: area.y, maxWidth: area.maxX - x, style: .footerKey)
            x = buffer.write(" " + hint.binding.title + "  ", x: x, y: area.y, maxWidth: max(0, area.maxX - x), style: .footerText)
        }
    }

    /// The order hints are dropped in: the others first (from the end of the table), then the kept ones last.
    private func rank(_ binding: KeyBinding) -> Int {
        Self.kept.firstIndex(of: binding.command).map { Self.kept.count - $0 } ?? 0
    }

    /// `key title  `: the key, a space, the title and two spaces before the next.
    private static func width(of binding: KeyBinding) -> Int {
        DisplayWidth.of(binding.footerKeyLabel) + DisplayWidth.of(" " + binding.title + "  ")
    }
}
