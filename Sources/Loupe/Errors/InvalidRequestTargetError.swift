/// A request names a host or port no transport can connect to (a port above 65535, port 0, no host).
///
/// The client checks every request before a transport sees it (SwiftNIO traps on a port above 65535), so a typed
/// URL, an imported HAR or a recorded exchange being replayed fails with this error inside a ``ClientError`` at
/// the `encoding` stage instead of crashing the process.
public struct InvalidRequestTargetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One sentence, such as `port 70000 is out of range (1-65535)`.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
