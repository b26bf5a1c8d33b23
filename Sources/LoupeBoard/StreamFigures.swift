import Foundation
import Loupe
import LoupeTrace

/// What the metrics take from one exchange's stream, read once: the figures a model-API user calls time to first
/// token and tokens per second, for any stream of server-sent events or WebSocket messages.
struct StreamFacts: Sendable {
    /// From the exchange's start to its first received message.
    var firstMessage: TimeInterval?
    /// Between each pair of received messages that follow one another (pairs across messages not kept past the cap
    /// are left out: the time between them spans messages never seen here).
    var gaps: [TimeInterval]
    /// Every message received, kept or not.
    var received: Int
    /// From the first to the last received message kept (the first and the last are always kept).
    var receiving: TimeInterval

    init?(_ exchange: TraceExchange) {
        guard let stream = exchange.stream else { return nil }
        var gaps: [TimeInterval] = []
        var first: Date?
        var previous: (index: Int, position: Int, at: Date)?
        var last: Date?
        for (position, message) in stream.messages.enumerated() where message.direction == .received {
            if first == nil { first = message.at }
            if let previous, message.index - previous.index == position - previous.position {
                gaps.append(max(0, message.at.timeIntervalSince(previous.at)))
            }
            previous = (message.index, position, message.at)
            last = message.at
        }
        self.gaps = gaps
        firstMessage = first.map { max(0, $0.timeIntervalSince(exchange.startedAt)) }
        received = max(0, stream.receivedCount)
        receiving = first.flatMap { first in last.map { max(0, $0.timeIntervalSince(first)) } } ?? 0
    }
}

/// A group's streams: how many, the time to their first message and the gaps between messages as histograms, and
/// messages per second while receiving. Made only for a group (or a time slot) that has a stream.
public struct StreamFigures: Sendable, Equatable {
    /// Exchanges that streamed.
    public private(set) var streams = 0
    /// Each stream's time from its start to its first received message.
    public private(set) var firstMessage = LatencyHistogram()
    /// Every gap between consecutive received messages.
    public private(set) var gaps = LatencyHistogram()
    /// Received messages after each stream's first, summed, and the seconds they took: their ratio is
    /// ``messagesPerSecond``.
    private var following = 0
    private var receiving: TimeInterval = 0

    public init() {}

    mutating func add(_ facts: StreamFacts) {
        streams = streams &+ 1
        if let first = facts.firstMessage { firstMessage.record(first) }
        for gap in facts.gaps { gaps.record(gap) }
        if facts.received > 1, facts.receiving > 0 {
            following = following &+ (facts.received - 1)
            receiving += facts.receiving
        }
    }

    mutating func add(_ other: StreamFigures) {
        streams = streams &+ other.streams
        firstMessage.add(other.firstMessage)
        gaps.add(other.gaps)
        following = following &+ other.following
        receiving += other.receiving
    }

    /// Messages received per second from each stream's first message to its last, over all the streams (what a
    /// model API's tokens per second is); nil when no stream received two messages apart in time.
    public var messagesPerSecond: Double? {
        receiving > 0 ? Double(following) / receiving : nil
    }
}

extension Optional where Wrapped == StreamFigures {
    /// Adds a stream, making the figures on the first one.
    mutating func include(_ facts: StreamFacts) {
        var figures = self ?? StreamFigures()
        figures.add(facts)
        self = figures
    }

    /// Adds another group's or slot's streams, making the figures on the first.
    mutating func include(_ other: StreamFigures) {
        var figures = self ?? StreamFigures()
        figures.add(other)
        self = figures
    }
}
