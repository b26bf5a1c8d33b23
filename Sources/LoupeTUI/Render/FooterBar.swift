/// The bottom line: key hints for the current context, straight from the ``Keymap``.
struct FooterBar {
    let keymap: Keymap
    let context: KeyContext

    func render(in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, style: .footerText)
        var x = area.x
        for binding in keymap.footerBindings(in: context) {
            let key = binding.footerKeyLabel
            let hint = " " + binding.title + "  "
            guard x + DisplayWidth.of(key) + DisplayWidth.of(hint) <= area.maxX + 1 else { break }
            x = buffer.write(key, x: x, y: area.y, style: .footerKey)
            x = buffer.write(hint, x: x, y: area.y, style: .footerText)
        }
    }
}
