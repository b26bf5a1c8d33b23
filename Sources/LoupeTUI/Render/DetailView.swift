/// One exchange in full: the wrapped document from the current scroll position.
struct DetailView {
    let detail: DetailState

    func render(in area: Rect, into buffer: inout Buffer) {
        var detail = detail
        detail.wrap(to: area.width)
        let visible = detail.wrapped.dropFirst(max(0, detail.scroll)).prefix(max(0, area.height))
        for (offset, line) in visible.enumerated() {
            var x = area.x
            for span in line.spans {
                x = buffer.write(span.text, x: x, y: area.y + offset, maxWidth: area.maxX - x, style: span.style)
            }
        }
    }
}
