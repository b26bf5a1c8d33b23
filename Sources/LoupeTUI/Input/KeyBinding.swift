/// One row of the key table: keys, the command they run, where, and whether the footer shows it (lazygit's
/// `Binding`). The same row drives input handling, footer hints, the `?` help and the `:` prompt's completion.
package struct KeyBinding: Hashable, Sendable {
    /// The keys that trigger the command; the first one is shown in the footer.
    package var keys: [Key]
    /// What the keys do.
    package var command: Command
    /// A word or two for the footer (`filter`).
    package var title: String
    /// Whether the footer shows this binding.
    package var showsInFooter: Bool
    /// Where the binding applies.
    package var contexts: Set<KeyContext>
    /// What the command does on these screens, when that differs from its general ``Command/summary``
    /// (Enter opens an exchange on the exchanges list but a key's history on the circuits board).
    package var description: String?

    /// A binding of `keys` to `command` in `contexts`, described as `help` there (else as the command's summary).
    package init(_ keys: [Key], _ command: Command, _ title: String, footer: Bool = false,
                 help: String? = nil, in contexts: Set<KeyContext>) {
        self.keys = keys
        self.command = command
        self.title = title
        self.showsInFooter = footer
        self.description = help
        self.contexts = contexts
    }

    /// A sentence for the help screen.
    package var help: String { description ?? command.summary }

    /// All keys, as the help screen writes them (`↑/k`).
    package var keyLabel: String { keys.map(\.label).joined(separator: "/") }

    /// The first key, as the footer writes it.
    package var footerKeyLabel: String { keys.first?.label ?? "" }
}
