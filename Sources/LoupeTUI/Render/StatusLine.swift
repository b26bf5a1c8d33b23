/// The line above the footer: the latest message (or store problem) on the left, the position on the right.
struct StatusLine {
    let state: InspectorState

    func render(in area: Rect, into buffer: inout Buffer) {
        let position = positionText
        let positionX = area.maxX - DisplayWidth.of(position) - 1
        buffer.write(position, x: positionX, y: area.y, style: .dim)
        let message = state.status ?? state.storeProblem.map { StatusMessage.error("store: " + $0) }
        if let message {
            buffer.write(DisplayWidth.truncate(" " + message.text, to: positionX - area.x - 1), x: area.x, y: area.y,
                         style: message.isError ? .error : .normal)
        }
    }

    private var positionText: String {
        if let detail = state.detail {
            let total = detail.wrapped.count
            let last = min(total, detail.scroll + state.layout.detailPage)
            return total == 0 ? "" : "lines \(detail.scroll + 1)–\(last) of \(total)"
        }
        guard let selected = state.selectedIndex else { return "" }
        return "\(QuantityFormat.grouped(selected + 1))/\(QuantityFormat.grouped(state.rows.count))"
    }
}
