import Foundation
import Synchronization

/// Carries out an ``OTLPDeliveryMachine``'s actions: sends through a transport and sleeps on an injected clock.
///
/// ``submit(_:)`` never waits (it takes a short lock); ``drain()`` sends until nothing is queued, one batch at a
/// time. The command line submits a batch and drains it before reading the next from the store; the live
/// exporter drains on a task of its own whenever something was submitted.
package final class OTLPDelivery: Sendable {
    private let machine: Mutex<OTLPDeliveryMachine>
    private let transport: any OTLPTransport
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double

    package init(transport: any OTLPTransport, settings: OTLPDeliveryMachine.Settings = .init(),
                 clock: any Clock<Duration> = ContinuousClock(),
                 random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        machine = Mutex(OTLPDeliveryMachine(settings: settings))
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    /// What became of every span submitted so far.
    package var counts: OTLPDeliveryCounts { machine.withLock { $0.counts } }
    /// Whether the last batch given up on was given up for want of a collector, and why the last send failed.
    package var outage: (inOutage: Bool, lastFailure: String?) { machine.withLock { ($0.inOutage, $0.lastFailure) } }
    /// Whether nothing is queued or in flight.
    package var isEmpty: Bool { machine.withLock { $0.isEmpty } }

    /// Queues `batch`; returns the spans dropped to make room (or the batch's own, when it cannot fit).
    @discardableResult
    package func submit(_ batch: OTLPBatch) -> Int {
        machine.withLock { $0.enqueue(batch) }
    }

    /// Sends until nothing is queued, retrying as the machine says. Returns early when the task is cancelled
    /// (what is held stays queued; ``abandon()`` counts it).
    package func drain() async {
        while !Task.isCancelled {
            guard case .send(let batch) = machine.withLock({ $0.next() }) else { return }
            let outcome = await transport.send(batch.body)
            let draw = random()
            guard let wait = machine.withLock({ $0.finished(outcome, random: draw) }) else { continue }
            do { try await clock.sleep(for: wait) } catch { return }
        }
    }

    /// Counts whatever is still held as not delivered, and lets it go.
    package func abandon() {
        machine.withLock { $0.abandon() }
    }
}
