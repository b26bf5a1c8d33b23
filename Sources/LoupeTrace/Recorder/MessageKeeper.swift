import DequeModule
import Foundation
import Loupe

/// The messages of one stream while it is open, bounded: the first `cap / 2` kept, then a ring of the last
/// `cap - cap / 2`, with every message counted. Payloads are cut at `payloadCap` as they arrive, so memory is bounded
/// by the caps whatever the stream's length. A value changed in place under the recorder's lock: one append.
struct MessageKeeper: Sendable {
    struct Raw: Sendable {
        var index: Int
        var direction: MessageDirection
        var at: Date
        var type: String
        var size: Int
        var payload: Data
        var eventID: String?
    }

    let cap: Int
    let payloadCap: Int
    private(set) var head: [Raw] = []
    private(set) var tail: Deque<Raw> = []
    private(set) var sent = 0
    private(set) var received = 0
    private(set) var bytes = 0

    init(cap: Int, payloadCap: Int) {
        self.cap = max(2, cap)
        self.payloadCap = max(0, payloadCap)
    }

    /// Every message seen.
    var count: Int { sent + received }
    /// Messages seen but no longer kept.
    var omitted: Int { count - head.count - tail.count }

    mutating func append(_ message: ExchangeMessage) {
        let size = message.payload.count
        let payload = size > payloadCap ? Data(message.payload.prefix(payloadCap)) : message.payload
        let raw = Raw(index: count, direction: message.direction, at: message.at, type: message.type, size: size,
                      payload: payload, eventID: message.eventID)
        if message.direction == .sent { sent += 1 } else { received += 1 }
        bytes += size
        if head.count < cap / 2 {
            head.append(raw)
            return
        }
        if tail.count == cap - cap / 2 { tail.removeFirst() }
        tail.append(raw)
    }

    /// The kept messages, oldest first.
    var kept: [Raw] { head + Array(tail) }
}
