/// The line above the footer: the latest message on the left, the top screen's position on the right.
struct StatusLine {
    let state: InspectorState

    func render(in area: Rect, into buffer: inout Buffer) {
        let position = state.top.position
        let positionX = area.maxX - DisplayWidth.of(position) - 1
        buffer.write(position, x: positionX, y: area.y, style: .dim)
        if let message = state.status ?? state.storeProblem.map(StatusMessage.error) {
            buffer.write(DisplayWidth.truncate(" " + message.text, to: positionX - area.x - 1), x: area.x, y: area.y,
                         style: message.isError ? .error : .normal)
        }
    }
}
