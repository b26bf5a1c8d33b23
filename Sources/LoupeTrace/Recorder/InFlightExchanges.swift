import Foundation

/// The exchanges between ``NetworkTraceInspector/exchangeStarted(_:)`` and its `exchangeFinished`, by id.
///
/// The first few sit in an array found by comparing ids, the rest in a dictionary, as the client's
/// `InflightRegistry` keeps its tasks (DECISIONS 442): inserting and removing by `UUID` hash cost two SipHash runs
/// and the dictionary's probing on the request path of every recorded exchange, and a scan of a few 16-byte ids
/// costs less. Past ``few`` a scan would grow with the load, so the dictionary takes over (DECISIONS 463). An id
/// inserted again replaces the exchange held under it, wherever it is, as the dictionary's subscript did.
/// Not one generic table shared with `InflightRegistry`: built in Loupe and used here, it ran unspecialized and
/// cost the recorder 3,000–6,000 instructions an exchange in runtime metadata look-ups (DECISIONS 474).
struct InFlightExchanges {
    static let few = 16
    private var first: [PendingExchange] = []
    private var rest: [UUID: PendingExchange] = [:]

    var count: Int { first.count + rest.count }

    /// Holds `exchange` under its id, replacing an exchange held under the same id.
    mutating func insert(_ exchange: consuming PendingExchange) {
        let id = exchange.id
        if let index = firstIndex(of: id) {
            first[index] = exchange
        } else if first.count < Self.few, rest.isEmpty || rest[id] == nil {
            if first.isEmpty { first.reserveCapacity(4) }
            first.append(exchange)
        } else {
            rest[id] = exchange
        }
    }

    /// Changes the exchange held under `id` in place (nothing when there is none).
    mutating func update(_ id: UUID, _ change: (inout PendingExchange) -> Void) {
        if let index = firstIndex(of: id) {
            change(&first[index])
        } else if !rest.isEmpty, let index = rest.index(forKey: id) {
            change(&rest.values[index])
        }
    }

    /// Takes the exchange held under `id` out, if any.
    mutating func remove(_ id: UUID) -> PendingExchange? {
        if let index = firstIndex(of: id) {
            // The last one moves into the gap: no element after it is shifted.
            if index != first.count - 1 { first.swapAt(index, first.count - 1) }
            return first.removeLast()
        }
        return rest.isEmpty ? nil : rest.removeValue(forKey: id)
    }

    /// The exchanges `isIncluded` accepts, in no particular order.
    func filter(_ isIncluded: (PendingExchange) -> Bool) -> [PendingExchange] {
        first.filter(isIncluded) + rest.values.filter(isIncluded)
    }

    private func firstIndex(of id: UUID) -> Int? {
        // The ids' bytes compared as two words: `UUID ==` compares its sixteen-byte tuple element by element.
        let wanted = Self.words(id)
        return first.firstIndex { Self.words($0.id) == wanted }
    }

    private static func words(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }
}
