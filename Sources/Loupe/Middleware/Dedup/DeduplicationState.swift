import Foundation

/// Which identical requests are in flight and who waits on them, as a value whose methods return what to do.
///
/// The first request for a key leads (it alone calls the transport); later identical requests join it. When the
/// leader is cancelled while others wait, the first joiner is promoted and sends instead, so one caller's
/// cancellation never fails the rest.
struct DeduplicationState<Key: Hashable & Sendable>: Sendable {
    typealias WaiterID = UInt64

    /// A request waiting on a flight: its waiter id and its exchange (for the recorder).
    struct Member: Sendable, Hashable {
        var waiter: WaiterID
        var exchange: UUID
    }

    /// One shared transport call.
    struct Flight: Sendable {
        var leader: Member
        var joiners: [Member]
    }

    enum ArrivalAction: Sendable, Equatable {
        /// No identical request is in flight: send it.
        case lead
        /// Wait for the in-flight request of `leader`.
        case join(leader: UUID)
    }

    private(set) var flights: [Key: Flight] = [:]

    /// A request for `key` arrives.
    mutating func arrive(_ key: Key, _ member: Member) -> ArrivalAction {
        if let flight = flights[key] {
            flights[key]?.joiners.append(member)
            return .join(leader: flight.leader.exchange)
        }
        flights[key] = Flight(leader: member, joiners: [])
        return .lead
    }

    /// The leader got a response or a failure to share: the flight ends and these joiners receive it.
    mutating func finish(_ key: Key, leader: WaiterID) -> [WaiterID] {
        guard let flight = flights[key], flight.leader.waiter == leader else { return [] }
        flights[key] = nil
        return flight.joiners.map(\.waiter)
    }

    /// The leader was cancelled: the first joiner (returned) leads now; with no joiner the flight ends.
    mutating func leaderCancelled(_ key: Key, leader: WaiterID) -> Member? {
        guard var flight = flights[key], flight.leader.waiter == leader else { return nil }
        guard !flight.joiners.isEmpty else {
            flights[key] = nil
            return nil
        }
        flight.leader = flight.joiners.removeFirst()
        flights[key] = flight
        return flight.leader
    }

    /// A joiner was cancelled: it leaves the flight. `false` when it was no longer waiting.
    mutating func leave(_ key: Key, waiter: WaiterID) -> Bool {
        guard let index = flights[key]?.joiners.firstIndex(where: { $0.waiter == waiter }) else { return false }
        flights[key]?.joiners.remove(at: index)
        return true
    }
}
