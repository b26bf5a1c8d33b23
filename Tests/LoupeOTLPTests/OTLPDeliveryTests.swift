import Foundation
import Logging
import LoupeTesting
import LoupeTrace
import Synchronization
import Testing
@testable import LoupeOTLP

/// A transport that answers from a script (then accepts), keeping every body it was given; with `held`, each send
/// waits until the test lets it go (or is cancelled).
final class ScriptedTransport: OTLPTransport {
    private struct State {
        var script: [OTLPDeliveryMachine.Outcome]
        var bodies: [[UInt8]] = []
    }
    private let state: Mutex<State>
    private let gate: AsyncStream<Void>?
    private let opener: AsyncStream<Void>.Continuation?

    init(_ script: [OTLPDeliveryMachine.Outcome] = [], held: Bool = false) {
        state = Mutex(State(script: script))
        if held {
            let (gate, opener) = AsyncStream<Void>.makeStream()
            (self.gate, self.opener) = (gate, opener)
        } else {
            (gate, opener) = (nil, nil)
        }
    }

    var bodies: [[UInt8]] { state.withLock { $0.bodies } }

    /// Lets one held send answer.
    func release() { opener?.yield() }

    func send(_ body: [UInt8]) async -> OTLPDeliveryMachine.Outcome {
        state.withLock { $0.bodies.append(body) }
        if let gate {
            var iterator = gate.makeAsyncIterator()
            guard await iterator.next() != nil else { return .retryable(reason: "cancelled", retryAfter: nil) }
        }
        return state.withLock { $0.script.isEmpty ? .accepted(rejectedSpans: 0) : $0.script.removeFirst() }
    }
}

/// Keeps what is logged, for the one-warning rule.
struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        lines.lines.withLock { $0.append("\(level): \(message)") }
    }
}

final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var logger: Logger {
        let lines = self
        return Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
    }
}

/// The loop that carries the machine's actions out, on a manual clock: nothing here sleeps.
struct OTLPDeliveryTests {
    static let exchange = OTLPEncodingTests.retried

    @Test func aRetryWaitsOnTheClockThenSendsTheSameBytes() async {
        let clock = ManualClock()
        let transport = ScriptedTransport([.retryable(reason: "HTTP 503", retryAfter: .seconds(1))])
        let delivery = OTLPDelivery(transport: transport, clock: clock)
        let batch = OTLPTraceRequest.encode([Self.exchange])
        delivery.submit(batch)
        let draining = Task { await delivery.drain() }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(1)])
        #expect(transport.bodies.count == 1)
        clock.advance(by: .seconds(1))
        await draining.value
        #expect(transport.bodies == [batch.body, batch.body])
        #expect(delivery.counts.deliveredSpans == 3)
        #expect(delivery.counts.retries == 1)
    }

    @Test func cancellingADrainDuringABackoffLeavesTheBatchToBeCounted() async {
        let clock = ManualClock()
        let delivery = OTLPDelivery(transport: ScriptedTransport([.retryable(reason: "refused", retryAfter: nil)]),
                                    clock: clock, random: { 0 })
        delivery.submit(OTLPTraceRequest.encode([Self.exchange]))
        let draining = Task { await delivery.drain() }
        await clock.waitForSleepers(1)
        draining.cancel()
        await draining.value
        #expect(!delivery.isEmpty)
        delivery.abandon()
        #expect(delivery.counts.failedSpans == 3)
        #expect(delivery.counts.deliveredSpans == 0)
    }

    @Test func theLiveExporterNeverWaitsDropsTheOldestAndLogsOnce() async {
        let transport = ScriptedTransport(held: true)
        let log = LogLines()
        let clock = ManualClock()
        let one = OTLPTraceRequest.encode([Self.exchange]).body.count
        // Room for two requests: the one in flight and one queued.
        let exporter = OTLPExporter(
            transport: transport,
            configuration: .init(capacityBytes: 2 * one, exchangesPerRequest: 1, finishTimeout: .seconds(5),
                                 logger: log.logger),
            clock: clock)
        let start = ContinuousClock.now
        for _ in 0..<50 { exporter.forward([Self.exchange]) }  // the collector never answers meanwhile
        #expect(ContinuousClock.now - start < .seconds(5), "forward waited for the collector")
        // 50 requests of 3 spans: at most two held, the rest dropped.
        while transport.bodies.isEmpty { await Task.yield() }
        #expect(exporter.counts.droppedSpans >= 48 * 3)
        #expect(log.all.count == 1)
        #expect(log.all.first?.contains("not reaching the collector") == true)
        transport.release()
        let finishing = Task { await exporter.finish() }
        await clock.waitForSleepers(1)  // finish's own time limit
        transport.release()
        await finishing.value
        let counts = exporter.counts
        #expect(counts.deliveredSpans + counts.undeliveredSpans == 50 * 3)
        #expect(counts.deliveredSpans == 6)
        #expect(log.all.count == 1, "logged once, however many were lost")
    }

    @Test func finishGivesUpAtItsTimeLimitAndCountsWhatWasLeft() async {
        let transport = ScriptedTransport(held: true)
        let clock = ManualClock()
        let exporter = OTLPExporter(
            transport: transport, configuration: .init(finishTimeout: .seconds(2), logger: LogLines().logger), clock: clock)
        exporter.forward([Self.exchange, Self.exchange])
        while transport.bodies.isEmpty { await Task.yield() }
        let finishing = Task { await exporter.finish() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))  // the collector never answers
        await finishing.value
        #expect(exporter.counts.failedSpans == 6)
        #expect(exporter.counts.deliveredSpans == 0)
    }
}
