/// The bounds of what an agent may ask for: every number a tool takes is checked against one of these, once, by
/// ``AgentArguments``, so a huge `limit` or body size is refused with what is allowed instead of read.
enum AgentLimits {
    static let exchanges = 1...1_000
    static let bodyBytes = 0...1_048_576
    static let defaultBodyBytes = 16_384
    static let messages = 0...10_000
    static let defaultMessages = 100
    static let searchText = 1...1_000
    /// How many operations (and hosts, or unmatched requests) `compare` and `check_contract` list.
    static let groups = 1...1_000
    static let defaultGroups = 100
    /// The longest path `compare` and `check_contract` take.
    static let pathBytes = 4_096
    /// The longest request line the stdio transport reads; a longer one is skipped to its end and answered with an
    /// error, so a 100 MB message costs no more memory than this.
    static let requestBytes = 4 * 1_048_576
    /// How many read lines may wait for the server before the stdio transport stops reading.
    static let queuedLines = 256
    /// How many exchanges the resource list names (the newest); each is also readable by its URI.
    static let listedResources = 100
}
