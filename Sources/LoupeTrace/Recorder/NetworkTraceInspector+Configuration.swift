import Foundation

extension NetworkTraceInspector {
    /// How much the recorder keeps, what it hides, and how it batches writes.
    public struct Configuration: Sendable {
        /// Bodies longer than this many bytes are stored cut, with ``TraceBody/isTruncated`` set. Default 1 MiB.
        public var bodyCap: Int
        /// What is replaced with `[REDACTED]` before anything is stored.
        public var redaction: RedactionPolicy
        /// Finished exchanges waiting to be written, at most; newer ones are dropped beyond it. Default 10 000.
        public var queueCapacity: Int
        /// Exchanges per store write, at most. Default 500.
        public var batchSize: Int
        /// How long a partial batch waits for company before it is written. Default 100 ms.
        public var flushInterval: Duration
        /// The clock that times ``flushInterval`` (inject a manual clock in tests).
        public var clock: any Clock<Duration>
        /// Where recorded exchanges also go, in stored form, each getting every batch: a live link (`LoupeLink`),
        /// an OpenTelemetry exporter (`LoupeOTLP`), both side by side, or none.
        public var forwarders: [any TraceForwarding]
        /// Messages kept per stream, at most: past it the first half and the last half are kept and those
        /// between counted (``TraceStream/omittedCount``). Default 10 000.
        public var messageCap: Int
        /// A stream message's payload is stored cut past this many bytes. Default 64 KiB.
        public var messagePayloadCap: Int
        /// How long ``NetworkTraceInspector/shutdown()`` waits, at most, for exchanges still ending (a request
        /// awaiting its answer, a streamed body the app is reading or just dropped) before it writes what is
        /// queued; open SSE and WebSocket streams are not waited for. Timed on ``clock``. Default 1 s.
        public var shutdownGrace: Duration

        /// Settings with the defaults above. A `nil` among `forwarders` is left out, so a link that may not be
        /// configured (`LoupeLink.fromEnvironment()`) goes in as it is.
        public init(
            bodyCap: Int = 1 << 20,
            redaction: RedactionPolicy = RedactionPolicy(),
            queueCapacity: Int = 10_000,
            batchSize: Int = 500,
            flushInterval: Duration = .milliseconds(100),
            clock: any Clock<Duration> = ContinuousClock(),
            forwarders: [(any TraceForwarding)?] = [],
            messageCap: Int = 10_000,
            messagePayloadCap: Int = 64 << 10,
            shutdownGrace: Duration = .seconds(1)
        ) {
            self.shutdownGrace = max(.zero, shutdownGrace)
            self.messageCap = max(2, messageCap)
            self.messagePayloadCap = max(0, messagePayloadCap)
            self.bodyCap = bodyCap
            self.redaction = redaction
            self.queueCapacity = queueCapacity
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.clock = clock
            self.forwarders = forwarders.compactMap { $0 }
        }
    }
}
