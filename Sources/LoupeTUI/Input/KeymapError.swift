/// A keys.toml entry the keymap cannot take, with the section and command it came from.
package struct KeymapError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `[exchanges] filter: unknown command 'fliter'`.
    package var description: String

    init(_ override: KeyOverride, _ problem: String) {
        description = "[\(override.context)] \(override.command): \(problem)"
    }

    init(context: String, _ problem: String) {
        description = problem
    }
}
