/// The line above the footer: the latest message on the left, the top screen's position on the right.
struct StatusLine {
    let state: TUIState

    func render(in area: Rect, into buffer: inout Buffer) {
        if let question = state.agentQuestion {
            // As a replay's question below: it owns the line while it is open.
            buffer.write(DisplayWidth.truncate(" " + question.question(yes: state.keymap.hint(.confirmReplay, in: .confirm)), to: area.width - 1),
                         x: area.x, y: area.y, style: .error)
            return
        }
        if let pending = state.replay.pending {
            // The question owns the line for as long as it is open, whatever else posts a message meanwhile (a
            // resize, a poll): `y` must never answer a question that is not on screen.
            buffer.write(DisplayWidth.truncate(" " + pending.question(yes: state.keymap.hint(.confirmReplay, in: .confirm)), to: area.width - 1), x: area.x, y: area.y,
                         style: .error)
            return
        }
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
        // Under a replay question, the footer's key hints give way to its answers and reasons.
        if let question = state.agentQuestion {
            return DisplayWidth.truncate(" " + question.explanation(yes: state.keymap.hint(.confirmReplay, in: .confirm)), to: width - 1)
        }
        if let pending = state.replay.pending { return DisplayWidth.truncate(" " + pending.explanation(yes: state.keymap.hint(.confirmReplay, in: .confirm)), to: width - 1) }
        guard let message = state.status ?? state.storeProblem.map(StatusMessage.error) else { return nil }
        let position = state.top.position
        let room = width - DisplayWidth.of(position) - 2
        return MessageLines.split(" " + message.text, width: room, nextWidth: width).rest
    }
}
