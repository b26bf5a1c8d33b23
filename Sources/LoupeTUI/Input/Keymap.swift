/// The one key table: ``InspectorState`` resolves keys through it, the footer and the help overlay list it.
package struct Keymap: Hashable, Sendable {
    /// Every binding, in the order the help screen lists them.
    package var bindings: [KeyBinding]

    /// A keymap of `bindings`; earlier bindings win when two claim the same key in one context.
    package init(bindings: [KeyBinding]) {
        self.bindings = bindings
    }

    /// The command `key` runs in `context`, if any.
    package func command(for key: Key, in context: KeyContext) -> InspectorCommand? {
        bindings.first { $0.contexts.contains(context) && $0.keys.contains(key) }?.command
    }

    /// The bindings that apply in `context`.
    package func bindings(in context: KeyContext) -> [KeyBinding] {
        bindings.filter { $0.contexts.contains(context) }
    }

    /// The bindings the footer shows in `context`.
    package func footerBindings(in context: KeyContext) -> [KeyBinding] {
        bindings(in: context).filter(\.showsInFooter)
    }

    /// The default keys: vi-style movement plus arrows, mitmproxy's `r`, `F` and `?`.
    package static let standard = Keymap(bindings: [
        KeyBinding([.up, "k"], .moveUp, title: "up", help: "Select the previous exchange; scroll up in detail",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.down, "j"], .moveDown, title: "down", help: "Select the next exchange; scroll down in detail",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.pageUp, .ctrl("b")], .pageUp, title: "page up", help: "Move one page up",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.pageDown, .ctrl("f"), " "], .pageDown, title: "page down", help: "Move one page down",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.home, "g"], .top, title: "top", help: "Jump to the oldest exchange; top of the detail",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.end, "G"], .bottom, title: "bottom", help: "Jump to the newest exchange; end of the detail",
                   footer: false, in: [.list, .detail]),
        KeyBinding([.enter, .right, "l"], .open, title: "open",
                   help: "Show the exchange: headers, bodies, attempts, events", footer: true, in: [.list]),
        KeyBinding([.escape, "q", .left, .backspace, "h"], .back, title: "back", help: "Back to the list",
                   footer: true, in: [.detail]),
        KeyBinding(["r"], .replay, title: "replay", help: "Send the exchange again (arrives as a ↻ row)",
                   footer: true, in: [.list, .detail]),
        KeyBinding(["F"], .toggleFollow, title: "follow", help: "Keep the newest exchange selected as traffic arrives",
                   footer: true, in: [.list, .detail]),
        KeyBinding(["?"], .help, title: "help", help: "Show this help", footer: true, in: [.list, .detail]),
        KeyBinding(["q"], .quit, title: "quit", help: "Quit the inspector", footer: true, in: [.list]),
        KeyBinding([.escape, "?", "q"], .back, title: "close", help: "Close this help", footer: true, in: [.help]),
    ])
}
