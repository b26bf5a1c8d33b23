/// Why a cassette could not open, answer a request or finish cleanly.
///
/// ``description`` is the whole message. For ``Code/noMatch`` it explains the miss, closest recordings first,
/// with each matcher's verdict:
///
/// ```
/// no recorded interaction matches GET https://api.example.com/items?page=3
///   #2 GET /items?page=2 — method ✓ path ✓ query ✗ (page=2 vs page=3)
/// ```
public struct CassetteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// A request matched no interaction the cassette may play, and the mode does not record it.
        case noMatch
        /// Interactions were never played (``Cassette/assertAllPlayed()``).
        case unplayedInteractions
        /// The recording is older than `maxAge` and the cassette was told to fail.
        case expired
        /// The mode only replays, and there is no cassette file.
        case notFound
        /// The cassette file exists but cannot be read as a Loupe store or a HAR file.
        case unreadable
        /// The cassette file could not be written.
        case cannotWrite
        /// The cassette had to send a request but its transport has no upstream to send it with.
        case noUpstream
        /// A secret's name cannot be a placeholder (letters, digits, `_` and `-` only), or two names share a value.
        case invalidSecret
    }

    /// What went wrong.
    public var code: Code
    /// The cassette file.
    public var path: String
    /// The whole message.
    public var message: String

    /// An error with this code and message about the cassette at `path`.
    public init(_ code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { message }
}
