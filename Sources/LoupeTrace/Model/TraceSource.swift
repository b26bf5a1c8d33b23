import Foundation

/// Which app recorded an exchange that arrived over the live link: its name, host and process id, as its hello
/// said. Exchanges recorded in-process have none.
public struct TraceSource: Sendable, Codable, Hashable, CustomStringConvertible {
    public var app: String
    public var host: String
    public var pid: Int

    public init(app: String, host: String, pid: Int) {
        self.app = app
        self.host = host
        self.pid = pid
    }

    /// `app (pid N on host)`; print it through ``TerminalText`` (the names come from the peer).
    public var description: String { "\(app) (pid \(pid) on \(host))" }

    /// The store's column text: JSON with sorted keys, as `JSONEncoder` writes it (written by hand: every linked
    /// exchange stored has one).
    package var storedText: String { StoredJSON.text(of: self) }
}
