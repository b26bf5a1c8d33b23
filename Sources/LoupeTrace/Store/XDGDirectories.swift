import Foundation

/// The XDG base directories Loupe uses: state (the trace store, prompt history) and config (the keymap file).
///
/// Empty variables count as unset and relative paths are ignored, as the XDG Base Directory spec asks; the
/// fallbacks are `~/.local/state` and `~/.config`. Every result is absolute.
package enum XDGDirectories {
    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    package static func stateHome(environment: [String: String]) -> String {
        base("XDG_STATE_HOME", fallback: ".local/state", environment: environment)
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    package static func configHome(environment: [String: String]) -> String {
        base("XDG_CONFIG_HOME", fallback: ".config", environment: environment)
    }

    /// `$HOME` when set and not empty, else the account's home directory.
    package static func home(environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }

    /// `folder` and `rest` joined by exactly one `/` when `folder` ends in one already.
    package static func join(_ folder: String, _ rest: String) -> String {
        folder.hasSuffix("/") ? folder + rest : folder + "/" + rest
    }

    private static func base(_ variable: String, fallback: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return join(home(environment: environment), fallback)
    }
}
