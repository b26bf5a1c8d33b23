/// One row of the key table: keys, the command they run, and how the footer and help screen describe it
/// (lazygit's `Binding`). The same row drives input handling, footer hints and the `?` help.
package struct KeyBinding: Hashable, Sendable {
    /// The keys that trigger the command; the first one is shown in the footer.
    package var keys: [Key]
    /// What the keys do.
    package var command: InspectorCommand
    /// A word or two for the footer (`open`).
    package var title: String
    /// A sentence for the help screen.
    package var help: String
    /// Whether the footer shows this binding.
    package var showsInFooter: Bool
    /// Where the binding applies.
    package var contexts: Set<KeyContext>

    /// A binding of `keys` to `command` in `contexts`.
    package init(_ keys: [Key], _ command: InspectorCommand, title: String, help: String, footer: Bool,
                in contexts: Set<KeyContext>) {
        self.keys = keys
        self.command = command
        self.title = title
        self.help = help
        self.showsInFooter = footer
        self.contexts = contexts
    }

    /// All keys, as the help screen writes them (`↑/k`).
    package var keyLabel: String { keys.map(\.label).joined(separator: "/") }

    /// The first key, as the footer writes it.
    package var footerKeyLabel: String { keys.first?.label ?? "" }
}
