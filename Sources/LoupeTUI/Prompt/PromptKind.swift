/// Which prompt is open: each has its own label, history file and meaning for Enter.
package enum PromptKind: String, Hashable, Sendable, CaseIterable {
    /// `f`: a filter expression, checked as it is typed, applied to the whole store on Enter.
    case filter
    /// `/`: text to find on the current screen, found as it is typed.
    case search
    /// `:` (and `x`, prefilled): a command by name.
    case command

    /// What the prompt line starts with.
    package var label: String {
        switch self {
        case .filter: "filter: "
        case .search: "/"
        case .command: ":"
        }
    }

    /// The history file's name under the XDG state folder.
    package var historyName: String { rawValue }
}
