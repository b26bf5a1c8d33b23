import Foundation
import Loupe
import LoupeTrace

/// A recorded server-sent event stream as it is served: the server's events, in recorded order, each written back
/// as a `text/event-stream` block (`id:` where the last event ID changes, `event:` for a type other than `message`,
/// one `data:` line per payload line), with the wait before it.
///
/// The stream ends after its last kept message, however the recording ended: a client that reconnects is answered
/// as any repeated request is (``ServeRepeat``). Messages the recorder did not keep (past its cap) are not served.
package struct ServeEventStream: Sendable, Hashable {
    /// One event's block and how long to wait before sending it.
    package struct Block: Sendable, Hashable {
        package var wait: TimeInterval
        package var text: Data
    }

    package let blocks: [Block]

    /// The server's messages of `stream`, with waits of the recorded gaps (from `start`, then from message to
    /// message) scaled by `pace`, each at most ``ServeOptions/maximumPace``; no waits without `pace`.
    package init(_ stream: TraceStream, start: Date?, pace: Double?) {
        var previous = start
        var current: String?
        var blocks: [Block] = []
        for message in stream.messages.sorted(by: { $0.index < $1.index }) where message.direction == .received {
            var text = ""
            if message.eventID != current {
                text += "id: \(message.eventID ?? "")\n"
                current = message.eventID
            }
            if message.type != "message" { text += "event: \(message.type)\n" }
            let data = String(decoding: message.payload, as: UTF8.self)
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            var wait: TimeInterval = 0
            if let pace, let previous { wait = min(max(0, message.at.timeIntervalSince(previous)) * pace, ServeOptions.maximumPace) }
            previous = message.at
            blocks.append(Block(wait: wait, text: Data((text + "\n").utf8)))
        }
        self.blocks = blocks
    }
}
