import Foundation
import LoupeTrace

/// A recorded response as it is served: the status, the headers that still hold, and the body bytes.
///
/// Headers that described the recorded connection rather than the response (`Connection`, `Keep-Alive`,
/// `Transfer-Encoding`, `Content-Length`, `Date`) are left out: the server writes its own, with the length of the
/// bytes it sends and today's date. A recorder keeps a body decoded, while its `Content-Encoding` header still names
/// the coding it came in: such a body is served decoded, without that header; a body still in its coding (it starts
/// with gzip's magic bytes) is served as recorded, header and all.
package struct ServeAnswer: Sendable, Hashable {
    package var status: Int
    package var headers: [TraceHeader]
    package var body: Data
    /// Whether the recorder kept only the start of the body (its cap): the bytes served are that start.
    package var truncated: Bool
    /// Whether a rule changed the answer (`LOUPE_RULES`).
    package var ruleActed: Bool
    /// The recorded time from the request sent to the first byte of the answer, and from there to its end (the
    /// last attempt's), which `--pace` waits again.
    package var firstByte: TimeInterval?
    package var transfer: TimeInterval?
    /// The recorded stream (server-sent events, WebSocket), served message by message instead of ``body``.
    package var stream: TraceStream?
    /// When the recorded stream's first byte came: the first message's recorded gap is measured from it.
    package var streamStart: Date?

    /// The answer `exchange` recorded; `nil` when it has no status (no response arrived).
    package init?(_ exchange: TraceExchange) {
        guard let status = exchange.status, (100...999).contains(status) else { return nil }
        let body = exchange.responseBody?.data ?? Data()
        let stillEncoded = body.starts(with: [0x1F, 0x8B])
        self.status = status
        self.body = body
        self.truncated = exchange.responseBody?.isTruncated ?? false
        self.ruleActed = false
        let attempt = exchange.attempts.last
        let sent = attempt?.requestSentAt ?? attempt?.startedAt ?? exchange.startedAt
        let first = attempt?.firstByteAt
        let end = attempt?.endedAt ?? exchange.endedAt
        self.firstByte = first.map { max(0, $0.timeIntervalSince(sent)) } ?? end.map { max(0, $0.timeIntervalSince(sent)) }
        self.transfer = first.flatMap { first in end.map { max(0, $0.timeIntervalSince(first)) } }
        self.stream = exchange.stream
        self.streamStart = first ?? attempt?.startedAt ?? exchange.startedAt
        self.headers = exchange.responseHeaders.filter { header in
            let name = header.name.lowercased()
            if Self.connectionHeaders.contains(name) { return false }
            if name == "content-encoding", !stillEncoded { return false }
            return true
        }
    }

    package init(status: Int, headers: [TraceHeader], body: Data, truncated: Bool = false, ruleActed: Bool = false,
                 firstByte: TimeInterval? = nil, transfer: TimeInterval? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncated = truncated
        self.ruleActed = ruleActed
        self.firstByte = firstByte
        self.transfer = transfer
    }

    /// Headers of the recorded connection, which the server sets for its own.
    static let connectionHeaders: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "content-length", "date", "upgrade", "proxy-connection", "te", "trailer",
    ]
}
