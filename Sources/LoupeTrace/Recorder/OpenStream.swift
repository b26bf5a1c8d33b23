import Foundation
import Loupe

/// A stream the recorder is following now: opened, not yet ended, so not in the store yet (an exchange is written
/// when it ends). The TUI shows these as live rows in the same process (`loupe demo`).
public struct OpenStream: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var operation: String
    public var method: String
    public var url: String
    public var kind: ExchangeStreamKind
    public var startedAt: Date
    /// Messages so far each way (past the cap too: counts are never capped).
    public var sent: Int
    public var received: Int

    public init(id: UUID, operation: String, method: String, url: String, kind: ExchangeStreamKind, startedAt: Date,
                sent: Int, received: Int) {
        self.id = id
        self.operation = operation
        self.method = method
        self.url = url
        self.kind = kind
        self.startedAt = startedAt
        self.sent = sent
        self.received = received
    }
}

extension NetworkTraceInspector {
    /// The streams open now, oldest first. Their URL (and an operation that quotes it) is redacted by the policy's
    /// query names before it leaves the recorder, as a stored row's is; no payload is included.
    public var openStreams: [OpenStream] {
        inFlightStreams().map { pending in
            let url = configuration.redaction.redact(url: pending.url)
            let operation = Scrubber(url: pending.url, redactedURL: url)(pending.operation)
            return OpenStream(id: pending.id, operation: operation, method: pending.method, url: url,
                              kind: pending.stream ?? .eventStream, startedAt: pending.startedAt,
                              sent: pending.messages?.sent ?? 0, received: pending.messages?.received ?? 0)
        }.sorted { $0.startedAt < $1.startedAt }
    }
}
