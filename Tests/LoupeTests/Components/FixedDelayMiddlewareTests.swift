import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct FixedDelayMiddlewareTests {
    @Test func holdsTheRequestUntilTheClockHasMoved() async throws {
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let sent = Recorded<Duration>()
        let client = makeComponentsClient(MockTransport { _, _, _ in
            sent.append(clock.now.offset)
            return RawResponse(status: .noContent)
        }, middlewares: [FixedDelayMiddleware(delay: .milliseconds(250))], observer: observer, clock: clock)

        let call = Task { try await client.send(Ping()) }
        await clock.waitForSleepers(1)
        #expect(sent.values.isEmpty)
        clock.advance(by: .milliseconds(249))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        _ = try await call.value

        #expect(sent.values == [.milliseconds(250)])
        #expect(clock.requestedSleeps == [.milliseconds(250)])
        #expect(observer.events.map(\.kind) == [.fixedDelay])
        #expect(observer.events.first?.attributes["delayMs"] == "250")
        #expect(observer.startedAnnotations.first?.extra["delayMs"] == "250")
    }

    @Test func zeroDelaySendsAtOnceWithoutRecording() async throws {
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(CannedTransport(RawResponse(status: .noContent)),
                                          middlewares: [FixedDelayMiddleware(delay: .zero)], observer: observer, clock: clock)
        _ = try await client.send(Ping())
        #expect(clock.requestedSleeps.isEmpty)
        #expect(observer.events.isEmpty)
    }

    @Test func cancellingTheWaitNeverSendsTheRequest() async throws {
        let clock = ManualClock()
        let sent = Recorded<Int>()
        let client = makeComponentsClient(MockTransport { _, _, _ in
            sent.append(1)
            return RawResponse(status: .noContent)
        }, middlewares: [FixedDelayMiddleware(delay: .seconds(5))], clock: clock)
        let call = Task { try await client.send(Ping()) }
        await clock.waitForSleepers(1)
        call.cancel()
        let error = await #expect(throws: ClientError.self) { try await call.value }
        #expect(error?.stage == .cancelled)
        #expect(sent.values.isEmpty)
    }
}
