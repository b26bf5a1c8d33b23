/// Draws an ``InspectorState`` into a ``Buffer``: pure, so tests compare text and styles directly.
package enum InspectorRenderer {
    /// The message shown when the screen is below ``InspectorLayout/minimumSize``.
    package static let tooSmallMessage = "terminal too small (need 40×8)"

    /// A buffer of the state's size showing the state.
    package static func render(_ state: InspectorState) -> Buffer {
        var buffer = Buffer(size: state.size)
        render(state, into: &buffer)
        return buffer
    }

    /// Draws the state into `buffer` (which should be the state's size).
    package static func render(_ state: InspectorState, into buffer: inout Buffer) {
        let layout = InspectorLayout(size: buffer.size)
        guard !buffer.area.isEmpty else { return }
        if layout.isTooSmall {
            buffer.write(DisplayWidth.truncate(tooSmallMessage, to: buffer.width), x: 0, y: 0, style: .error)
            return
        }
        TitleBar(state: state).render(in: layout.titleBar, into: &buffer)
        if let detail = state.detail {
            DetailView(detail: detail).render(in: layout.content, into: &buffer)
        } else {
            ListView(state: state).render(into: &buffer)
        }
        if state.showsHelp {
            HelpOverlay(keymap: state.keymap).render(in: layout.content, into: &buffer)
        }
        StatusLine(state: state).render(in: layout.statusLine, into: &buffer)
        FooterBar(state: state).render(in: layout.footer, into: &buffer)
    }
}
