import Foundation
import LoupeQuery
import LoupeTrace

/// What every screen shares: which exchanges (filter, marks-only), in which order, which are marked, and
/// whether the view follows new traffic. The next screens (timeline, circuits, metrics) read the same filter.
package struct TUISession: Hashable, Sendable {
    /// The parsed filter, applied in SQL to the whole store.
    package var filter: TraceFilter?
    /// The filter as typed, for the title bar and the prompt.
    package var filterText: String?
    /// The list's order.
    package var order: ExchangeOrder = .oldestFirst
    /// The marked exchanges.
    package var marks: Set<UUID> = []
    /// Whether only marked exchanges are shown.
    package var showsMarkedOnly = false
    /// Whether the newest exchange stays selected as traffic arrives.
    package var follow = true
    /// Whether the exchanges list shows the SOURCE column (the linked app of each exchange).
    package var showsSource = false
    /// The last search, for `n` and `N`.
    package var search: String?
    /// The filter as parsed, when it has terms the contract answers (``filter`` then holds their answers).
    package var contractFilter: ContractFilter?

    /// A filter with terms the OpenAPI contract answers (`~drift`, `~op`): as parsed, as answered, and the
    /// checks' version answered, so it is answered again as exchanges are checked.
    package struct ContractFilter: Hashable, Sendable {
        package var parsed: TraceFilter
        package var resolved: TraceFilter
        package var version: Int
    }

    package init() {}

    /// The rows the exchanges list shows.
    package var query: ExchangeQuery {
        ExchangeQuery(filter: filter, order: order, ids: showsMarkedOnly ? marks : nil)
    }
}
