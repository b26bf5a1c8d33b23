/// One row of the key table: keys, the command they run, and how the footer and help screen describe it
/// (lazygit's `Binding`). The same row drives input handling, footer hints and the `?` help.
public struct KeyBinding: Hashable, Sendable {
    /// The keys that trigger the command; the first one is shown in the footer.
    public var keys: [Key]
    /// What the keys do.
    public var command: InspectorCommand
    /// A word or two for the footer (`open`).
    public var title: String
    /// A sentence for the help screen.
    public var help: String
    /// Whether the footer shows this binding.
    public var showsInFooter: Bool
    /// Where the binding applies.
    public var contexts: Set<KeyContext>

    /// A binding of `keys` to `command` in `contexts`.
    public init(_ keys: [Key], _ command: InspectorCommand, title: String, help: String, footer: Bool,
                in contexts: Set<KeyContext>) {
        self.keys = keys
        self.command = command
        self.title = title
        self.help = help
        self.showsInFooter = footer
        self.contexts = contexts
    }

    /// All keys, as the help screen writes them (`↑/k`).
    public var keyLabel: String { keys.map(\.label).joined(separator: "/") }

    /// The first key, as the footer writes it.
    public var footerKeyLabel: String { keys.first?.label ?? "" }
}
