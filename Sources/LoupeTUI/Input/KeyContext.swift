/// Where a key binding applies: one per screen, plus ``prompt`` while a prompt takes the keyboard.
///
/// A screen names its context (``Screen/keyContext``); a new screen adds a case here and its rows to
/// ``Keymap/standard``.
package enum KeyContext: String, Hashable, Sendable, CaseIterable {
    case exchanges
    case detail
    /// A replay compared with its original (`d`).
    case diff
    case help
    /// Exchanges on a time axis (`2`).
    case timeline
    /// The circuit-breaker board (`3`).
    case circuits
    /// One breaker key's transitions.
    case circuitHistory = "circuit-history"
    /// Live metrics (`4`).
    case metrics
    /// Rules and held requests of linked apps (`5`).
    case rules
    /// Agents' requests waiting for a person (`6`, from `loupe mcp --allow-actions`).
    case agents
    /// A text prompt (filter, search, `:`); printable keys type text there, so none may be bound in it.
    case prompt
    /// A replay's question (`Replay? y/N`): its key sends, and any other key cancels.
    case confirm

    /// Sections a keys.toml written before a rename may still name (former names, still read).
    package static let formerNames: [String: KeyContext] = ["flows": .exchanges]  // former names

    /// The screens' contexts: a `[global]` section of keys.toml applies to these.
    package static let screens: [KeyContext] = allCases.filter { $0 != .prompt && $0 != .confirm }
}
