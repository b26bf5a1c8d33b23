import Foundation
import Loupe
import LoupeTrace

extension TraceStore {
    /// Store numbers (`#N`) of the other exchanges `exchange` names: the original it replays, and ids in its events'
    /// attributes (the exchange a de-duplicated request joined, the one it replaced). A printer shows them as
    /// `#N`, as `loupe list` does; an id the store no longer holds is left out and reads as its UUID.
    package func numbers(referencedBy exchange: TraceExchange) -> [UUID: Int64] {
        var ids: [UUID] = exchange.replayOf.map { [$0] } ?? []
        for event in exchange.events {
            for value in event.attributes.values {
                if let id = UUID(uuidString: value), id != exchange.id, !ids.contains(id) { ids.append(id) }
            }
        }
        var numbers: [UUID: Int64] = [:]
        // A handful at most in practice; the bound keeps a hostile store from turning one detail into many reads.
        for id in ids.prefix(16) {
            guard let summary = try? summaries(idPrefix: id.uuidString, limit: 1).first, summary.id == id else { continue }
            numbers[id] = summary.sequence
        }
        return numbers
    }
}
