/// The `?` screen: every binding of the ``Keymap`` in a centred box, keys then what they do.
struct HelpOverlay {
    let keymap: Keymap

    static let keyColumnWidth = 16

    func render(in area: Rect, into buffer: inout Buffer) {
        let bindings = keymap.bindings
        let width = min(area.width, 76)
        let height = min(area.height, bindings.count + 2)
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        guard box.width >= 4, box.height >= 3 else { return }
        buffer.fill(box)
        let inner = box.width - 2
        buffer.write("┌" + String(repeating: "─", count: inner) + "┐", x: box.x, y: box.y, style: .dim)
        buffer.write(" Keys ", x: box.x + 2, y: box.y, style: .heading)
        for row in 1..<(box.height - 1) {
            buffer.write("│", x: box.x, y: box.y + row, style: .dim)
            buffer.write("│", x: box.maxX - 1, y: box.y + row, style: .dim)
        }
        buffer.write("└" + String(repeating: "─", count: inner) + "┘", x: box.x, y: box.maxY - 1, style: .dim)

        let textX = box.x + 2
        let textWidth = inner - 2
        let fits = box.height - 2
        let shown = bindings.count <= fits ? bindings.count : max(0, fits - 1)
        if shown < bindings.count {
            buffer.write("… \(bindings.count - shown) more: enlarge the terminal", x: textX, y: box.maxY - 2,
                         maxWidth: textWidth, style: .dim)
        }
        for (offset, binding) in bindings.prefix(shown).enumerated() {
            let y = box.y + 1 + offset
            buffer.write(DisplayWidth.pad(binding.keyLabel, to: Self.keyColumnWidth), x: textX, y: y,
                         maxWidth: textWidth, style: .footerKey)
            buffer.write(binding.help, x: textX + Self.keyColumnWidth + 1, y: y,
                         maxWidth: textWidth - Self.keyColumnWidth - 1)
        }
    }
}
