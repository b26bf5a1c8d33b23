import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// DECISIONS 74: the in-memory store keeps its entries in a deque, its id index keyed by two words, and pruned
/// ids in the index until it is rebuilt. A bounded store written at random (new exchanges, rewrites of stored ones
/// and of pruned ones, batches of every size) must hold exactly what a plain list model says, and find each by id
/// and by sequence.
@Suite("In-memory store, deque")
struct InMemoryStoreDequeTests {
    @Test("a bounded store written at random holds what a list model holds", arguments: [1, 3, 17])
    func matchesListModel(maxCount: Int) throws {
        var generator = SeededGenerator(seed: UInt64(maxCount))
        let store = InMemoryTraceStore(bounds: TraceStoreBounds(maxCount: maxCount, maxBytes: nil, maxAge: nil))
        var model: [(id: UUID, operation: String, sequence: Int64)] = []
        var everWritten: [UUID] = []
        var nextSequence: Int64 = 1
        for round in 0..<400 {
            var batch: [TraceExchange] = []
            for item in 0..<Int.random(in: 1...(maxCount + 3), using: &generator) {
                let id: UUID
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !model.isEmpty: id = model.randomElement(using: &generator)!.id
                case 1 where !everWritten.isEmpty: id = everWritten.randomElement(using: &generator)!
                default: id = UUID()
                }
                let operation = "r\(round)-\(item)"
                batch.append(TraceExchange(id: id, operation: operation, method: "GET", url: "https://a.test/\(round)",
                                           startedAt: Date(timeIntervalSince1970: 1_000), outcome: .success))
                model.removeAll { $0.id == id }
                model.append((id, operation, nextSequence))
                nextSequence += 1
                everWritten.append(id)
            }
            try store.write(batch)
            model = Array(model.suffix(maxCount))

            #expect(store.all.map(\.id) == model.map(\.id), "round \(round)")
            #expect(store.all.map(\.sequence) == model.map { Optional($0.sequence) }, "round \(round)")
            #expect(try store.count() == model.count)
            let marker = try store.changeMarker()
            #expect(marker.minSequence == model.first?.sequence && marker.maxSequence == model.last?.sequence)
            for entry in model {
                #expect(try store.exchange(id: entry.id)?.operation == entry.operation, "round \(round)")
                #expect(try store.exchange(sequence: entry.sequence)?.id == entry.id, "round \(round)")
            }
            // Pruned ids stay in the index for a while (DECISIONS 74): recent ones, and every one now and then
            // (before and after the index is rebuilt), must be found nowhere.
            for id in round % 50 == 0 ? everWritten : Array(everWritten.suffix(20)) where !model.contains(where: { $0.id == id }) {
                #expect(try store.exchange(id: id) == nil, "round \(round): a pruned id is gone")
            }
            if let middle = model.dropFirst(model.count / 2).first {
                #expect(try store.summaries(after: middle.sequence, limit: 100).map(\.id)
                    == model.filter { $0.sequence > middle.sequence }.map(\.id))
            }
            #expect(try store.recent(limit: 2).map(\.id) == model.suffix(2).map(\.id))
        }
    }
}
