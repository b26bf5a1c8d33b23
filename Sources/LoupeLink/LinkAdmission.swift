import DequeModule

/// Which connections the listener keeps, as a value: linked apps hold their slots, and peers that have not proved
/// the secret share a smaller budget in which the newest replaces the oldest.
///
/// With one budget for all, 530 idle TCP connections renewed every 8 s kept every app out: each slot freed by the
/// hello deadline went to the next idle connection (issue 44). Here a connection that has said no hello yet is
/// *unproven*; at most ``maxUnproven`` are, and one more closes the oldest of them. A real app needs its slot only
/// for a TLS handshake and one frame, milliseconds, so a flood must open ``maxUnproven`` connections in that time to
/// push it out, while an idle one is gone as soon as newer ones come. Linked apps are never closed to make room; at
/// ``maxConnections`` in all with none unproven, a newcomer is refused. Per-address limits would not help: apps and
/// a flood on the same host share one address.
struct LinkAdmission<ID: Hashable>: Sendable where ID: Sendable {
    enum Decision: Sendable, Equatable {
        /// Keep it (unproven until ``LinkAdmission/welcomed(_:)``).
        case admit
        /// Keep it, and close this older unproven connection (already forgotten here).
        case admitEvicting(ID)
        /// Close it: every slot is a linked app's.
        case refuse
    }

    let maxConnections: Int
    let maxUnproven: Int
    /// Connections without a hello yet, oldest first.
    private(set) var unproven = Deque<ID>()
    /// Connections whose app linked.
    private(set) var linked = Set<ID>()

    init(maxConnections: Int, maxUnproven: Int) {
        self.maxConnections = max(1, maxConnections)
        self.maxUnproven = min(max(1, maxUnproven), self.maxConnections)
    }

    var count: Int { unproven.count + linked.count }

    /// A connection was accepted.
    mutating func arrived(_ id: ID) -> Decision {
        if unproven.count >= maxUnproven || (count >= maxConnections && !unproven.isEmpty) {
            let oldest = unproven.removeFirst()
            unproven.append(id)
            return .admitEvicting(oldest)
        }
        guard count < maxConnections else { return .refuse }
        unproven.append(id)
        return .admit
    }

    /// The connection's app proved the secret: it keeps its slot until it closes.
    mutating func welcomed(_ id: ID) {
        if let index = unproven.firstIndex(of: id) { unproven.remove(at: index) }
        // Also when it was chosen for eviction a moment ago: its close is then refused by its own machine, and it
        // counts as linked until it leaves.
        linked.insert(id)
    }

    /// The connection closed.
    mutating func left(_ id: ID) {
        if let index = unproven.firstIndex(of: id) { unproven.remove(at: index) }
        linked.remove(id)
    }
}
