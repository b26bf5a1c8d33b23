import LoupeTrace

extension InspectorFilter {
    /// Shows the rows `filter` selects: the same language as `loupe list --filter`. Terms that need headers,
    /// bodies or breaker state load the exchange from `store` (only for rows the summary cannot decide).
    public init(_ filter: TraceFilter, store: any TraceStore) {
        self.init(filter.description) { summary in
            if let decided = filter.matches(summary) { return decided }
            guard let exchange = try? store.exchange(id: summary.id) else { return false }
            return filter.matches(exchange)
        }
    }
}
