import Foundation

/// The exchanges between ``NetworkTraceInspector/exchangeStarted(_:)`` and its `exchangeFinished`, by id.
///
/// The first few sit in an array found by comparing ids, the rest in a dictionary, as the client's
/// `InflightRegistry` keeps its tasks: inserting and removing by `UUID` hash cost two SipHash runs
/// and the dictionary's probing on the request path of every recorded exchange, and a scan of a few 16-byte ids
/// costs less. Past ``few`` a scan would grow with the load, so the dictionary takes over. An id
/// inserted again replaces the exchange held under it, wherever it is, as the dictionary's subscript did.
/// Not one generic table shared with `InflightRegistry`: built in Loupe and used here, it ran unspecialized and
/// cost the recorder runtime metadata look-ups on every exchange.
/// It holds boxes (``ExchangeBox``), one reference each: inserting, removing and moving one into a gap copies eight
/// bytes, not the few hundred of a ``PendingExchange``.
struct InFlightExchanges {
    static let few = 16
    private var first: [ExchangeBox] = []
    private var rest: [UUID: ExchangeBox] = [:]

    var count: Int { first.count + rest.count }

    /// Holds `box` under its id, replacing an exchange held under the same id.
    mutating func insert(_ box: ExchangeBox) {
        let id = box.id
        if let index = firstIndex(of: id) {
            first[index] = box
        } else if first.count < Self.few, rest.isEmpty || rest[id] == nil {
            if first.isEmpty { first.reserveCapacity(4) }
            first.append(box)
        } else {
            rest[id] = box
        }
    }

    /// Changes the exchange held under `id` in place (nothing when there is none).
    mutating func update(_ id: UUID, _ change: (inout PendingExchange) -> Void) {
        if let index = firstIndex(of: id) {
            let box = first[index]
            change(&box.pending)
        } else if !rest.isEmpty, let box = rest[id] {
            change(&box.pending)
        }
    }

    /// Takes the exchange held under `id` out, if any.
    mutating func remove(_ id: UUID) -> ExchangeBox? {
        if let index = firstIndex(of: id) {
            // The last one moves into the gap: no element after it is shifted.
            if index != first.count - 1 { first.swapAt(index, first.count - 1) }
            return first.removeLast()
        }
        return rest.isEmpty ? nil : rest.removeValue(forKey: id)
    }

    /// The exchanges `isIncluded` accepts, in no particular order (copies, taken under the caller's lock).
    func filter(_ isIncluded: (PendingExchange) -> Bool) -> [PendingExchange] {
        (first + rest.values).compactMap { isIncluded($0.pending) ? $0.pending : nil }
    }

    private func firstIndex(of id: UUID) -> Int? {
        let wanted = id.words
        return first.firstIndex { $0.id.words == wanted }
    }
}

/// One recorded exchange from its start to the writer: the recorder's table, the writer's queue, its batch and the
/// conversion all hand it on as one reference. Boxed when it finished, it was moved (a few hundred bytes, and the
/// optional's bookkeeping) into the table, out of it, through `finish` and into the box on the request path of
/// every exchange.
///
/// `@unchecked Sendable` and `@exclusivity(unchecked)`, because nothing else orders the accesses to `pending`:
/// the recorder's lock and the writer's queue do. `pending` is changed (1) while the box is in
/// ``NetworkTraceInspector``'s `inFlight`, only inside `state.withLock` (``InFlightExchanges/update(_:_:)``), and
/// read there only inside it (``InFlightExchanges/filter(_:)``); (2) by the one caller that took it out of
/// `inFlight` under that lock (`exchangeFinished`) or made it without ever putting it there (`exchangeCompleted`),
/// which then finishes it and hands it to ``TraceWriter/enqueue(_:)``, whose lock orders that last change before the
/// writer's reads; after the hand-off nothing changes it. Two accesses to one box never overlap, so the dynamic
/// exclusivity check (two runtime calls an access) is not made.
final class ExchangeBox: @unchecked Sendable {
    /// The exchange's id, read without touching `pending` (the table compares ids while scanning).
    let id: UUID
    @exclusivity(unchecked) var pending: PendingExchange

    init(_ pending: consuming PendingExchange) {
        id = pending.id
        self.pending = pending
    }

    /// The exchange's trace, built at the end of the writer's batch from the exchange where it is (see
    /// ``PendingExchange/appendTrace(to:policy:bodyCap:)``).
    func appendTrace(to traces: inout [TraceExchange], policy: RedactionPolicy, bodyCap: Int) {
        pending.appendTrace(to: &traces, policy: policy, bodyCap: bodyCap)
    }
}
