import Foundation

/// Where the trace store lives when no path is given.
public enum StoreLocation {
    /// `$LOUPE_STORE`, else `$XDG_STATE_HOME/loupe/traces.sqlite`, else `~/.local/state/loupe/traces.sqlite`.
    ///
    /// Empty variables count as unset, and a relative `XDG_STATE_HOME` is ignored, as the XDG spec asks.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["LOUPE_STORE"], !explicit.isEmpty {
            return explicit
        }
        return XDGDirectories.join(XDGDirectories.stateHome(environment: environment), "loupe/traces.sqlite")
    }
}
