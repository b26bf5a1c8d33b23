import Foundation
import Testing
@testable import LoupeOTLP

/// The delivery rules on plain values: retries, waits, outages, memory.
struct OTLPDeliveryMachineTests {
    static func batch(_ spans: Int, bytes: Int = 100) -> OTLPBatch {
        OTLPBatch(body: Array(repeating: UInt8(spans & 0xFF), count: bytes), spanCount: spans, exchangeCount: 1)
    }
    static let unavailable = OTLPDeliveryMachine.Outcome.retryable(reason: "HTTP 503", retryAfter: nil)

    @Test func aRetryableAnswerWaitsWithAGrowingJitteredBackoffThenDelivers() {
        var machine = OTLPDeliveryMachine(settings: .init(initialBackoff: .milliseconds(200), maxBackoff: .seconds(1),
                                                          maxAttempts: 6, jitter: 0.5))
        machine.enqueue(Self.batch(3))
        var waits: [Duration] = []
        for random in [0.0, 1.0, 0.0, 0.0] {
            #expect(machine.next() == .send(Self.batch(3)))
            waits.append(machine.finished(Self.unavailable, random: random) ?? .zero)
        }
        // 200 ms, 400 ms less half, 800 ms, then the 1 s cap.
        #expect(waits == [.milliseconds(200), .milliseconds(200), .milliseconds(800), .seconds(1)])
        #expect(machine.next() == .send(Self.batch(3)))
        #expect(machine.finished(.accepted(rejectedSpans: 0), random: 0) == nil)
        #expect(machine.next() == .idle)
        #expect(machine.counts.deliveredSpans == 3)
        #expect(machine.counts.retries == 4)
        #expect(machine.counts.undeliveredSpans == 0)
        #expect(machine.heldBytes == 0)
    }

    @Test func retryAfterIsHonouredUpToItsCap() {
        var machine = OTLPDeliveryMachine(settings: .init(maxRetryAfter: .seconds(30)))
        machine.enqueue(Self.batch(1))
        _ = machine.next()
        #expect(machine.finished(.retryable(reason: "HTTP 429", retryAfter: .seconds(3)), random: 0.9) == .seconds(3))
        _ = machine.next()
        #expect(machine.finished(.retryable(reason: "HTTP 503", retryAfter: .seconds(3600)), random: 0) == .seconds(30))
    }

    @Test func afterEveryAttemptABatchIsGivenUpAndLaterOnesGetOneTryUntilOneGetsThrough() {
        var machine = OTLPDeliveryMachine(settings: .init(maxAttempts: 3))
        for spans in [2, 3, 4, 5] { machine.enqueue(Self.batch(spans)) }
        _ = machine.next()
        #expect(machine.finished(Self.unavailable, random: 0) != nil)
        _ = machine.next()
        #expect(machine.finished(Self.unavailable, random: 0) != nil)
        _ = machine.next()
        #expect(machine.finished(Self.unavailable, random: 0) == nil)  // third try: given up
        #expect(machine.inOutage)
        #expect(machine.next() == .send(Self.batch(3)))
        #expect(machine.finished(.retryable(reason: "connection refused", retryAfter: nil), random: 0) == nil)
        #expect(machine.next() == .send(Self.batch(4)))
        #expect(machine.finished(.accepted(rejectedSpans: 0), random: 0) == nil)
        #expect(!machine.inOutage)
        #expect(machine.next() == .send(Self.batch(5)))
        #expect(machine.finished(Self.unavailable, random: 0) != nil)  // out of the outage: retried again
        #expect(machine.counts.failedSpans == 5)
        #expect(machine.counts.failedBatches == 2)
        #expect(machine.counts.deliveredSpans == 4)
        #expect(machine.lastFailure == "HTTP 503")
    }

    @Test func aRefusalIsNotRetriedAndAPartialSuccessCountsItsRejectedSpans() {
        var machine = OTLPDeliveryMachine()
        machine.enqueue(Self.batch(4))
        machine.enqueue(Self.batch(6))
        _ = machine.next()
        #expect(machine.finished(.refused(status: 400), random: 0) == nil)
        _ = machine.next()
        #expect(machine.finished(.accepted(rejectedSpans: 2), random: 0) == nil)
        #expect(machine.counts.failedSpans == 4 + 2)
        #expect(machine.counts.deliveredSpans == 4)
        #expect(machine.counts.retries == 0)
        #expect(machine.isEmpty)
    }

    @Test func memoryIsBoundedInBytesAndTheOldestQueuedAreDroppedFirst() {
        var machine = OTLPDeliveryMachine(settings: .init(capacityBytes: 350))
        machine.enqueue(Self.batch(1))
        #expect(machine.next() == .send(Self.batch(1)))  // in flight: kept through a retry
        machine.enqueue(Self.batch(2))
        machine.enqueue(Self.batch(3))
        #expect(machine.heldBytes == 300)
        #expect(machine.enqueue(Self.batch(4)) == 2)  // drops batch 2, the oldest queued
        #expect(machine.heldBytes == 300)
        #expect(machine.enqueue(Self.batch(9, bytes: 351)) == 9)  // larger than everything: itself
        #expect(machine.enqueue(Self.batch(8, bytes: 251)) == 8)  // does not fit beside the one in flight
        #expect(machine.enqueue(Self.batch(7, bytes: 250)) == 3 + 4)  // fits once both queued are dropped
        #expect(machine.counts.droppedSpans == 2 + 9 + 8 + 3 + 4)
        #expect(machine.counts.droppedBatches == 5)
        _ = machine.finished(.accepted(rejectedSpans: 0), random: 0)
        #expect(machine.next() == .send(Self.batch(7, bytes: 250)))
        #expect(machine.heldBytes == 250)
    }

    @Test func abandoningCountsWhatIsHeld() {
        var machine = OTLPDeliveryMachine()
        machine.enqueue(Self.batch(2))
        machine.enqueue(Self.batch(3))
        _ = machine.next()
        machine.abandon()
        #expect(machine.counts.failedSpans == 5)
        #expect(machine.counts.undeliveredSpans == 5)
        #expect(machine.isEmpty)
        #expect(machine.heldBytes == 0)
    }
}
