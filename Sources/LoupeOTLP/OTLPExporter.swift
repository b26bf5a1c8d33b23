import AsyncHTTPClient
import Foundation
import Logging
import LoupeTrace
import Synchronization

/// Sends what a ``NetworkTraceInspector`` records to an OpenTelemetry collector as it records it (OTLP/HTTP,
/// protobuf): an exchange span with a child span per attempt, as ``TraceSpanExporter`` maps them.
///
/// Attach it where a live link would go; it receives each batch the recorder writes, already redacted and capped
/// as the store holds it, on the recorder's background writer and never on the request path:
///
/// ```swift
/// let exporter = try OTLPExporter(endpoint: OTLPEndpoint("http://127.0.0.1:4318/v1/traces"))
/// let inspector = NetworkTraceInspector(store: store, configuration: .init(forwarders: [exporter]))
/// let client = Client.resilient(baseURL: api, observer: inspector)
/// …
/// await inspector.shutdown()   // writes the store, then gives the exporter its finishTimeout to deliver
/// ```
///
/// It never blocks or fails a request. Requests go one at a time; a collector that is down or answers 429, 502,
/// 503 or 504 is retried with backoff (honouring `Retry-After`) while new batches queue, within
/// ``Configuration/capacityBytes``: past it the oldest are dropped. Whatever is not delivered is counted in
/// ``counts``, and the first loss is logged once (swift-log, `loupe.otlp`). A live link as well is a second
/// forwarder beside it: `.init(forwarders: [exporter, link])`.
public final class OTLPExporter: TraceForwarding {
    /// The exporter's settings.
    public struct Configuration: Sendable {
        /// Encoded request bodies held at most, in bytes (queued while a collector is away). Default 16 MiB.
        public var capacityBytes: Int
        /// Exchanges per request, at most (the recorder hands over up to its batch size at once). Default 256.
        public var exchangesPerRequest: Int
        /// How long ``finish()`` may spend delivering what is queued. Default 5 s.
        public var finishTimeout: Duration
        /// One request's limit. Default 10 s.
        public var requestTimeout: Duration
        /// Where the one warning about lost spans goes.
        public var logger: Logger

        /// Settings with the defaults above; numbers out of range are brought into it.
        public init(capacityBytes: Int = 16 << 20, exchangesPerRequest: Int = 256, finishTimeout: Duration = .seconds(5),
                    requestTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "loupe.otlp")) {
            self.capacityBytes = max(0, capacityBytes)
            self.exchangesPerRequest = max(1, exchangesPerRequest)
            self.finishTimeout = max(.zero, finishTimeout)
            self.requestTimeout = max(.milliseconds(1), requestTimeout)
            self.logger = logger
        }
    }

    /// The settings it was made with.
    public let configuration: Configuration
    private let delivery: OTLPDelivery
    private let wakeups: AsyncStream<Void>.Continuation
    private let sender: Task<Void, Never>
    private let lossLog: OTLPLossLog
    private let clock: any Clock<Duration>

    /// An exporter to `endpoint` over AsyncHTTPClient's shared client.
    public convenience init(endpoint: OTLPEndpoint, configuration: Configuration = Configuration()) {
        self.init(transport: OTLPHTTPTransport(endpoint: endpoint, timeout: configuration.requestTimeout),
                  configuration: configuration)
    }

    /// An exporter sending through `transport`, waiting on `clock` (tests script both).
    package init(transport: any OTLPTransport, configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(),
                 random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.configuration = configuration
        self.clock = clock
        let delivery = OTLPDelivery(
            transport: transport, settings: .init(capacityBytes: configuration.capacityBytes), clock: clock,
            random: random)
        self.delivery = delivery
        // One pending wake-up is enough: a drain sends everything queued when it runs.
        let (wakeups, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wakeups = continuation
        let lossLog = OTLPLossLog(delivery: delivery, logger: configuration.logger)
        self.lossLog = lossLog
        sender = Task.detached {
            for await _ in wakeups {
                await delivery.drain()
                lossLog.check()
            }
        }
    }

    deinit {
        wakeups.finish()
    }

    /// What became of every span handed over so far.
    public var counts: OTLPDeliveryCounts { delivery.counts }

    /// Encodes `exchanges` into requests of at most ``Configuration/exchangesPerRequest`` and queues them
    /// (dropping the oldest queued past ``Configuration/capacityBytes``), then wakes the sender. Never waits.
    public func forward(_ exchanges: [TraceExchange]) {
        var start = exchanges.startIndex
        while start < exchanges.endIndex {
            let end = min(start + configuration.exchangesPerRequest, exchanges.endIndex)
            let dropped = delivery.submit(OTLPTraceRequest.encode(exchanges[start..<end]))
            if dropped > 0 { lossLog.check() }
            start = end
        }
        wakeups.yield()
    }

    /// Delivers what is queued within ``Configuration/finishTimeout`` and counts the rest as failed. Called by
    /// `NetworkTraceInspector.shutdown()`.
    public func finish() async {
        wakeups.finish()
        let sender = self.sender
        let clock = self.clock
        let timeout = configuration.finishTimeout
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await sender.value }
            group.addTask {
                try? await clock.sleep(for: timeout)
                sender.cancel()
            }
            await group.next()
            group.cancelAll()
        }
        delivery.abandon()
        lossLog.check()
    }
}

/// Says once that spans are being lost, and why; the counts keep going up after it, silently.
final class OTLPLossLog: Sendable {
    private let delivery: OTLPDelivery
    private let logger: Logger
    private let warned = Atomic<Bool>(false)

    init(delivery: OTLPDelivery, logger: Logger) {
        self.delivery = delivery
        self.logger = logger
    }

    /// Logs the first time any span was dropped or given up on.
    func check() {
        let counts = delivery.counts
        guard counts.undeliveredSpans > 0, !warned.exchange(true, ordering: .relaxed) else { return }
        let reason = delivery.outage.lastFailure.map { " (last failure: \($0))" } ?? ""
        logger.warning(
            "loupe otlp: spans are not reaching the collector\(reason); \(counts.undeliveredSpans) lost so far, counted in OTLPExporter.counts")
    }
}
