/// `?`: every key of the screen it was opened from, the prompt keys, and every command the `:` prompt runs,
/// straight from the ``Keymap`` (a user's keys.toml shows here too). Scrolls and searches like the detail.
package struct HelpScreen: Screen {
    /// The context whose keys are listed.
    package let context: KeyContext
    /// The help's lines, wrapped to the screen's width (continuations under the description column).
    package private(set) var lines: [StyledLine]
    /// The lines before wrapping.
    private let source: [StyledLine]
    /// Where the help is scrolled to.
    private var viewport: ListViewport

    package init(for context: KeyContext, keymap: Keymap, area: Rect) {
        self.context = context
        self.source = Self.lines(for: context, keymap: keymap)
        self.lines = Self.wrap(source, to: area.width)
        self.viewport = ListViewport(count: lines.count, height: area.height, selects: false)
    }

    private static func wrap(_ lines: [StyledLine], to width: Int) -> [StyledLine] {
        lines.flatMap { $0.wrapped(to: max(1, width), hangingIndent: keyColumn + 3) }
    }

    package var keyContext: KeyContext { .help }
    package var title: String { "help" }
    package var position: String { viewport.linesPosition }
    /// The first line shown.
    package var scroll: Int { viewport.offset }

    static let keyColumn = 18

    static func lines(for context: KeyContext, keymap: Keymap) -> [StyledLine] {
        var lines = [StyledLine("Keys on this screen (\(context.rawValue))", style: .heading)]
        lines += keymap.bindings(in: context).map { line($0, keymap.help(of: $0, in: context)) }
        let prompts = "Keys in prompts ({filter} filter, {search} search, {command-prompt} command)"
        lines += [.empty, StyledLine(keymap.filling(prompts, in: context), style: .heading)]
        lines += keymap.bindings(in: .prompt).map { line($0, keymap.help(of: $0, in: .prompt)) }
        let question = "Keys in a replay's question ({replay}, {repeat-replay} and {edit-replay} ask before they send)"
        lines += [.empty, StyledLine(keymap.filling(question, in: context), style: .heading)]
        lines += keymap.bindings(in: .confirm).map { line($0, keymap.help(of: $0, in: .confirm)) }
        lines += [.empty, StyledLine("Commands at the : prompt (Tab completes)", style: .heading)]
        let here = keymap.bindings(in: context)
        for command in Command.allCases where command.runsFromPrompt {
            let name = command.name + (command.argument.map { " " + $0.placeholder } ?? "")
            // What the command does on this screen, as its key's row says, so the two lists cannot disagree.
            let summary = keymap.filling(here.first { $0.command == command }?.help ?? command.summary, in: context)
            // A form wider than the column is written whole and pushes its summary right: cut, it would not say
            // what to type.
            let column = max(keyColumn + 12, DisplayWidth.of(name))
            lines.append(StyledLine([.init("  " + DisplayWidth.pad(name, to: column), .label),
                                     .init(" " + summary)]))
        }
        lines += [.empty, StyledLine("Rebind keys in $XDG_CONFIG_HOME/loupe/keys.toml (see the README).", style: .dim)]
        return lines
    }

    private static func line(_ binding: KeyBinding, _ help: String) -> StyledLine {
        StyledLine([.init("  " + DisplayWidth.pad(binding.keyLabel, to: keyColumn), .footerKey),
                    .init(" " + help + "  "), .init(binding.command.name, .dim)])
    }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        viewport.perform(command)
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        if reason == .resized { lines = Self.wrap(source, to: context.area.width) }
        viewport.update(count: lines.count, height: context.area.height)
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        guard let hit = viewport.search(text, in: lines.map(\.text), forward: forward, fromCurrent: fromCurrent) else {
            return false
        }
        context.status = RowSearch.message(hit, text)
        return true
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        viewport.wheel(event.kind)
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        for (offset, line) in lines.dropFirst(viewport.offset).prefix(area.height).enumerated() {
            buffer.write(styled: line, x: area.x, y: area.y + offset, maxX: area.maxX)
        }
    }
}
