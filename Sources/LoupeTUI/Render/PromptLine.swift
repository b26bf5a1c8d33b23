/// An open prompt: its label and text with the cursor on the status line (scrolled sideways to keep the cursor
/// in view), and below it the error with a `^` under its place, the completions, or the prompt's key hints.
struct PromptLine {
    let prompt: Prompt

    func render(in area: Rect, footer: Rect, keymap: Keymap, into buffer: inout Buffer) {
        let label = prompt.kind.label
        let labelWidth = DisplayWidth.of(label)
        buffer.fill(area, style: .prompt)
        buffer.write(label, x: area.x, y: area.y, style: .prompt)
        let room = max(1, area.width - labelWidth - 1)
        let characters = prompt.input.characters
        // Keep the cursor inside the line: scroll so it sits at most at the right edge.
        let first = max(0, prompt.input.cursor - room + 1)
        var x = area.x + labelWidth
        var cursorX = x
        for (index, character) in characters.enumerated().dropFirst(first) {
            if index == prompt.input.cursor { cursorX = x }
            guard x < area.maxX - 1 else { break }
            x = buffer.write(String(character), x: x, y: area.y, maxWidth: area.maxX - x, style: .prompt)
        }
        if prompt.input.cursor >= characters.count { cursorX = x }
        let cursorCell = buffer[cursorX, area.y]
        buffer.write(cursorCell.isContinuation ? " " : String(cursorCell.character), x: cursorX, y: area.y, maxWidth: 1,
                     style: .cursor)

        buffer.fill(footer, style: .footerText)
        if let problem = prompt.problem {
            var text = "  " + problem.message
            var markerX = footer.x
            if let offset = problem.offset, offset >= first {
                let prefix = String(characters[first..<min(characters.count, max(first, offset))])
                markerX = area.x + labelWidth + DisplayWidth.of(prefix)
                text = "^ " + problem.message
            }
            if markerX + DisplayWidth.of(text) > footer.maxX { markerX = max(footer.x, footer.maxX - DisplayWidth.of(text)) }
            buffer.write(text, x: markerX, y: footer.y, maxWidth: footer.maxX - markerX, style: .error)
        } else if let hint = prompt.hint {
            let keys = keymap.filling(" · {submit} runs it · {cancel} cancels", in: .prompt)
            buffer.write(" \(hint)" + keys, x: footer.x, y: footer.y, maxWidth: footer.width,
                         style: .footerText)
        } else if !prompt.completions.isEmpty {
            buffer.write(" " + prompt.completions.joined(separator: "  "), x: footer.x, y: footer.y,
                         maxWidth: footer.width, style: .footerText)
        } else {
            FooterBar(keymap: keymap, context: .prompt).render(in: footer, into: &buffer)
        }
    }
}
