/// One row of the user's `keys.toml`: in `context`, `command` is bound to exactly `keys`.
///
/// The keys replace the command's default keys in that context (an empty list unbinds it). Names are checked
/// for shape only where the file is read; ``Keymap`` checks that the context and the command exist.
package struct KeyOverride: Hashable, Sendable {
    /// The key context as the file names it (`global`, `exchanges`, …).
    package var context: String
    /// The command's name (`filter`, `quit`, …).
    package var command: String
    /// The keys, in the order written, without repeats.
    package var keys: [Key]

    package init(context: String, command: String, keys: [Key]) {
        self.context = context
        self.command = command
        self.keys = keys
    }
}
