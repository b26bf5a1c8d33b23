/// The one key table: the TUI resolves keys through it, the footer and the help screen list it, and a
/// user's keys.toml rewrites it (``applying(_:)``).
package struct Keymap: Hashable, Sendable {
    /// Every binding, in the order the help screen lists them.
    package private(set) var bindings: [KeyBinding]

    /// A keymap of `bindings`; earlier bindings win when two claim the same key in one context.
    package init(bindings: [KeyBinding]) {
        self.bindings = bindings
    }

    /// The command `key` runs in `context`, if any.
    package func command(for key: Key, in context: KeyContext) -> Command? {
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

    /// The first key that runs `command` in `context`, as the footer writes it (for hints like "o next").
    package func label(of command: Command, in context: KeyContext) -> String? {
        bindings(in: context).first { $0.command == command }?.footerKeyLabel
    }

    /// A keymap where each override's keys run its command in its context, replacing the command's default keys
    /// there and taking those keys away from any other command in that context.
    ///
    /// - Throws: ``KeymapError`` for an unknown context or command, a printable key bound in a prompt, or a
    ///   command that does not belong in the context.
    package func applying(_ overrides: [KeyOverride]) throws -> Keymap {
        var result = self
        for override in overrides {
            let contexts = try Self.contexts(named: override.context)
            guard let command = Command(name: override.command) else {
                throw KeymapError(override, "unknown command '\(override.command)'")
            }
            for context in contexts {
                try result.bind(override.keys, to: command, in: context, override: override)
            }
        }
        return result
    }

    private static func contexts(named name: String) throws -> [KeyContext] {
        if name == "global" { return KeyContext.screens }
        guard let context = KeyContext(rawValue: name) ?? KeyContext.formerNames[name] else {
            throw KeymapError(context: name, "unknown section '[\(name)]' (use global, "
                + KeyContext.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return [context]
    }

    private mutating func bind(_ keys: [Key], to command: Command, in context: KeyContext,
                               override: KeyOverride) throws {
        if context == .prompt {
            guard command.isTextEditing else { throw KeymapError(override, "'\(command.name)' cannot be bound in [prompt]") }
            if let printable = keys.first(where: { if case .char = $0 { true } else { false } }) {
                throw KeymapError(override, "'\(printable.label)' types text in prompts and cannot be bound there")
            }
        } else if (context == .confirm) != (command == .confirmReplay) {
            throw KeymapError(override, context == .confirm ? "'\(command.name)' cannot be bound in [confirm]"
                : "'\(command.name)' only works in [confirm]")
        } else if command.isTextEditing {
            // In a [global] section a prompt-only command is simply skipped; named in a screen's section, it is a mistake.
            throw KeymapError(override, "'\(command.name)' only works in [prompt]")
        }
        let title = bindings.first { $0.command == command }?.title ?? command.name
        let footer = bindings.first { $0.command == command && $0.contexts.contains(context) }?.showsInFooter ?? false
        let help = bindings.first { $0.command == command && $0.contexts.contains(context) }?.description
        // The new row goes where the command's row was, so the footer and help keep their order.
        let position = bindings.firstIndex { $0.command == command && $0.contexts.contains(context) }
        for index in bindings.indices where bindings[index].contexts.contains(context) {
            if bindings[index].command == command {
                bindings[index].contexts.remove(context)
            } else if bindings[index].keys.contains(where: keys.contains) {
                // The key moves to the new command in this context only: split the row if it serves others.
                var taken = bindings[index]
                taken.contexts = [context]
                taken.keys.removeAll(where: keys.contains)
                bindings[index].contexts.remove(context)
                bindings.append(taken)
            }
        }
        let row = KeyBinding(keys, command, title, footer: footer, help: help, in: [context])
        bindings.insert(row, at: min(position ?? bindings.count, bindings.count))
        bindings.removeAll { $0.contexts.isEmpty || $0.keys.isEmpty }
    }
}
