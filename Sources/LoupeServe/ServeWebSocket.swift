import Foundation
import Loupe
import LoupeTrace

/// A recorded WebSocket conversation as it is served: the recording's messages in order, each either the client's
/// (waited for: the next message the live client sends) or the server's (sent, after the recorded gap scaled by
/// `--pace`), then the close as recorded.
///
/// A value whose ``steps`` the server walks; what the live client's messages say is not compared, only counted, so a
/// conversation plays as recorded whatever the client sends.
package struct ServeWebSocket: Sendable, Hashable {
    /// One step of the conversation.
    package enum Step: Sendable, Hashable {
        /// Wait for the client's next message.
        case awaitClient
        /// Send a text or binary message after `wait` seconds.
        case send(text: Bool, payload: Data, wait: TimeInterval)
        /// Close with this code and reason after `wait` seconds (the server closed the recorded conversation).
        case close(code: Int, reason: String, wait: TimeInterval)
        /// Wait until the client closes (it closed the recorded conversation, or the recording has no close).
        case awaitClose
    }

    package let steps: [Step]

    /// The steps of `stream`: its kept messages in recorded order (pings and pongs left to the protocol), its
    /// server's waits measured from `start` and scaled by `pace` (none without it).
    package init(_ stream: TraceStream, start: Date?, pace: Double?) {
        var previous = start
        var steps: [Step] = []
        var closed = false
        func wait(until at: Date) -> TimeInterval {
            defer { previous = at }
            guard let pace, let previous else { return 0 }
            return min(max(0, at.timeIntervalSince(previous)) * pace, ServeOptions.maximumPace)
        }
        for message in stream.messages.sorted(by: { $0.index < $1.index }) where !closed {
            switch (message.direction, message.type) {
            case (.sent, "text"), (.sent, "binary"):
                _ = wait(until: message.at)
                steps.append(.awaitClient)
            case (.received, "text"), (.received, "binary"):
                steps.append(.send(text: message.type == "text", payload: message.payload, wait: wait(until: message.at)))
            case (.received, "close"):
                let (code, reason) = Self.close(message.payload, stream: stream)
                steps.append(.close(code: code, reason: reason, wait: wait(until: message.at)))
                closed = true
            default:
                continue  // pings, pongs and the client's close: the protocol's own, or the end below
            }
        }
        if !closed {
            let serverClosed = stream.closedBy == "server" && stream.closeCode != 1006
            steps.append(serverClosed ? .close(code: stream.closeCode ?? 1000, reason: stream.closeReason ?? "", wait: 0) : .awaitClose)
        }
        self.steps = steps
    }

    /// A close code that may go on the wire: 1005, 1006 and 1015 only describe a close (RFC 6455 section 7.4.1), and
    /// a recording of one is closed as 1000.
    package static func sendable(_ code: Int) -> Int {
        (1000...4999).contains(code) && ![1004, 1005, 1006, 1015].contains(code) ? code : 1000
    }

    /// The code and reason of a recorded close frame (two bytes of code, then the reason), else the stream's.
    static func close(_ payload: Data, stream: TraceStream) -> (Int, String) {
        guard payload.count >= 2 else { return (stream.closeCode ?? 1000, stream.closeReason ?? "") }
        let bytes = [UInt8](payload)
        return (Int(bytes[0]) << 8 | Int(bytes[1]), String(decoding: bytes.dropFirst(2), as: UTF8.self))
    }
}
