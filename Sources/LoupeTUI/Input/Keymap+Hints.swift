extension Keymap {
    /// How to run `command` from `context`, for a hint in a message or a help text (`w widens the window`): its
    /// first key there as the footer writes it; else its key on the first screen that has one (`e` edits a replay
    /// on the exchanges list and the detail, which the rules screen's help refers to); else `:name`, since the `:`
    /// prompt runs every command. So a key rebound in keys.toml is the key the texts name.
    package func hint(_ command: Command, in context: KeyContext) -> String {
        if let label = label(of: command, in: context) { return label }
        let elsewhere = KeyContext.allCases.lazy.compactMap { self.label(of: command, in: $0) }.first
        return elsewhere ?? ":" + command.name
    }

    /// `text` with each `{command-name}` in it replaced by the command's ``hint(_:in:)`` in `context`: help texts
    /// and hints name keys this way rather than by letter. Braces around anything but a command name stay.
    package func filling(_ text: String, in context: KeyContext) -> String {
        guard text.contains("{") else { return text }
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                  let command = Command(name: String(rest[rest.index(after: open)..<close])) else {
                result.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            result += hint(command, in: context)
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// What `binding` does in `context`, its keys named as this keymap binds them.
    package func help(of binding: KeyBinding, in context: KeyContext) -> String {
        filling(binding.help, in: context)
    }
}
