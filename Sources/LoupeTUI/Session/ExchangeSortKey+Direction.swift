import LoupeQuery
import LoupeTrace

extension ExchangeSortKey {
    /// The direction a new sort by this key starts in: what a person looks for first (the slowest, the worst
    /// status, the largest); time, host and operation read naturally from the top down.
    package var startsDescending: Bool {
        switch self {
        case .duration, .status, .size: true
        case .time, .host, .operation: false
        }
    }
}
