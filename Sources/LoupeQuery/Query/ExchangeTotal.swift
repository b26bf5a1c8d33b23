import Foundation

/// How many rows a query matches, with the newest sequence the count saw: a live list goes on from there, so a row
/// committed while it counted is neither missed nor counted again as an arrival.
public struct ExchangeTotal: Hashable, Sendable {
    /// Rows matching the query.
    public var count: Int
    /// The store's newest sequence when it counted (`nil` when it was empty).
    public var newestSequence: Int64?

    public init(count: Int, newestSequence: Int64?) {
        self.count = count
        self.newestSequence = newestSequence
    }
}
