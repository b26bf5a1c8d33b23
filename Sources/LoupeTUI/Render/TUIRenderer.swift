/// Draws a ``TUIState`` into a ``Buffer``: title bar, the top screen, the status line (or the open
/// prompt) and the footer (key hints, or the prompt's error and completions). Pure, so tests compare buffers.
package enum TUIRenderer {
    /// The message shown when the screen is below ``TUILayout/minimumSize``.
    package static let tooSmallMessage = "terminal too small (need 40×8)"

    /// A buffer of the state's size showing the state.
    package static func render(_ state: TUIState) -> Buffer {
        var buffer = Buffer(size: state.size)
        render(state, into: &buffer)
        return buffer
    }

    /// Draws the state into `buffer` (which should be the state's size).
    package static func render(_ state: TUIState, into buffer: inout Buffer) {
        let layout = TUILayout(size: buffer.size)
        guard !buffer.area.isEmpty else { return }
        if layout.isTooSmall {
            buffer.write(DisplayWidth.truncate(tooSmallMessage, to: buffer.width), x: 0, y: 0, style: .error)
            return
        }
        TitleBar(state: state).render(in: layout.titleBar, into: &buffer)
        var context = RenderContext(session: state.session, calendar: state.calendar, search: state.highlightedSearch)
        context.now = state.now
        context.link = state.listener?.link
        context.keymap = state.keymap
        context.contract = state.contract
        state.top.render(in: layout.content, into: &buffer, context: context)
        if let prompt = state.prompt {
            PromptLine(prompt: prompt).render(in: layout.statusLine, footer: layout.footer, keymap: state.keymap,
                                              into: &buffer)
        } else {
            let statusLine = StatusLine(state: state)
            statusLine.render(in: layout.statusLine, into: &buffer)
            if let rest = statusLine.overflow(width: layout.statusLine.width) {
                buffer.fill(layout.footer, style: .normal)
                buffer.write(rest, x: layout.footer.x, y: layout.footer.y, maxWidth: layout.footer.width,
                             style: state.status?.isError ?? true ? .error : .normal)
            } else {
                FooterBar(keymap: state.keymap, context: state.keyContext).render(in: layout.footer, into: &buffer)
            }
        }
    }
}
