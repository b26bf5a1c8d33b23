/// Where a key binding applies: the exchange list, the detail view, or the help overlay on top of either.
package enum KeyContext: String, Hashable, Sendable, CaseIterable {
    case list
    case detail
    case help
}
