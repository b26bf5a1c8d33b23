import LoupeTrace

/// Which rows the inspector shows, and how the title bar names the filter (`loupe tui --filter EXPR`).
public struct InspectorFilter: Sendable {
    /// The expression as the user wrote it.
    public var description: String
    /// Whether a row is shown.
    public var matches: @Sendable (TraceSummary) -> Bool

    /// A filter named `description` that keeps rows for which `matches` is true.
    public init(_ description: String, matches: @escaping @Sendable (TraceSummary) -> Bool) {
        self.description = description
        self.matches = matches
    }
}
