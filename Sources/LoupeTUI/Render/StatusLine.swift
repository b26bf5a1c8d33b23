/// The line above the footer: the latest message on the left, the top screen's position on the right.
struct StatusLine {
    let state: InspectorState

    func render(in area: Rect, into buffer: inout Buffer) {
        let position = state.top.position
        let positionX = area.maxX - DisplayWidth.of(position) - 1
        buffer.write(position, x: positionX, y: area.y, style: .dim)
        if let message = state.status ?? state.storeProblem.map(StatusMessage.error) {
            let first = MessageLines.split(" " + message.text, width: positionX - area.x - 1, nextWidth: area.width).first
            buffer.write(first, x: area.x, y: area.y, style: message.isError ? .error : .normal)
        }
    }

    /// What of the message does not fit the status line, for the footer's line (``MessageLines``).
    func overflow(width: Int) -> String? {
        guard let message = state.status ?? state.storeProblem.map(StatusMessage.error) else { return nil }
        let position = state.top.position
        let room = width - DisplayWidth.of(position) - 2
        return MessageLines.split(" " + message.text, width: room, nextWidth: width).rest
    }
}
