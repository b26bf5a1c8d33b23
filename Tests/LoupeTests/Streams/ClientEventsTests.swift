import Foundation
import HTTPTypes
@testable import Loupe
import LoupeTesting
import Synchronization
import Testing

@Suite struct ClientEventsTests {
    static let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/v1/stream")!)

    /// A `text/event-stream` 200 whose body is `chunks`, then ends (or breaks with `error`).
    static func stream(_ chunks: [String], error: (any Error)? = nil, status: HTTPResponse.Status = .ok,
                       contentType: String = "text/event-stream; charset=utf-8") -> StreamedResponse {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
        continuation.finish(throwing: error)
        return StreamedResponse(head: HTTPResponse(status: status, headerFields: [.contentType: contentType]), body: body)
    }

    /// Answers the attempts from `script`, keeping each request.
    final class Script: Sendable {
        let answers: [@Sendable () -> StreamedResponse]
        let requests = Mutex<[HTTPRequest]>([])
        init(_ answers: [@Sendable () -> StreamedResponse]) { self.answers = answers }
        var transport: StreamingMockTransport {
            StreamingMockTransport { [self] request, _, _ in
                let index = requests.withLock { $0.append(request); return $0.count - 1 }
                return answers[min(index, answers.count - 1)]()
            }
        }
        var sent: [HTTPRequest] { requests.withLock { $0 } }
    }

    @Test func eventsArriveAndADroppedStreamReconnectsWithLastEventIDAfterTheServersRetry() async throws {
        let script = Script([
            { Self.stream(["retry: 1500\nid: 1\ndata: a\n\n", "id: 2\nda"], error: TransportError(.connectionReset, "peer reset")) },
            { Self.stream(["id: 3\ndata: c\n\n"]) },
            { Self.stream([], status: .noContent) },
        ])
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(script.transport, observer: observer, clock: clock)
        let reader = Task {
            var seen: [ServerSentEvent] = []
            for try await event in client.events(Self.request) { seen.append(event) }
            return seen
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1500))
        let events = try await reader.value

        #expect(events.map(\.data) == ["a", "c"] && events.map(\.id) == ["1", "3"])
        let lastIDs = script.sent.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] }
        #expect(lastIDs == [nil, "1", "3"], "the cut block's id 2 is never sent")
        #expect(script.sent.allSatisfy { $0.headerFields[.accept] == "text/event-stream" })
        let finished = try #require(observer.finishedExchanges.first)
        #expect(observer.finishedExchanges.count == 1 && finished.attempts.count == 3 && finished.outcome == .success)
        #expect(observer.messages.map(\.payload) == [Data("a".utf8), Data("c".utf8)])
        #expect(observer.messages.allSatisfy { $0.direction == .received && $0.exchangeID == finished.exchangeID })
        let reconnects = observer.events.filter { $0.kind == .streamReconnect }
        #expect(reconnects.count == 2 && reconnects.allSatisfy { $0.attributes["delayMs"] == "1500" })
    }

    @Test func aResponseThatIsNotAnEventStreamFailsWithoutReconnecting() async throws {
        let script = Script([{ Self.stream(["{}"], contentType: "application/json") }])
        let client = makeComponentsClient(script.transport, clock: ManualClock())
        await #expect(throws: ClientError.self) {
            for try await _ in client.events(Self.request) {}
        }
        #expect(script.sent.count == 1)
    }

    @Test func anErrorStatusFailsTheStream() async throws {
        let script = Script([{ Self.stream(["nope"], status: .unauthorized, contentType: "text/plain") }])
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(script.transport, observer: observer, clock: ManualClock())
        let error = await #expect(throws: ClientError.self) {
            for try await _ in client.events(Self.request) {}
        }
        #expect(error?.stage == .validation && script.sent.count == 1)
        #expect(observer.finishedExchanges.first?.outcome == .httpError)
    }

    @Test func cancellingTheReaderClosesTheConnectionAndEndsTheExchangeAsCancelled() async throws {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(Data("data: first\n\n".utf8))
        let closed = Mutex(false)
        continuation.onTermination = { _ in closed.withLock { $0 = true } }
        let transport = StreamingMockTransport { _, _, _ in
            StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), body: body)
        }
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(transport, observer: observer, clock: ManualClock())
        let (first, firstSeen) = AsyncStream.makeStream(of: String.self)
        let reader = Task {
            for try await event in client.events(Self.request) { firstSeen.yield(event.data) }
        }
        var iterator = first.makeAsyncIterator()
        #expect(await iterator.next() == "first")
        reader.cancel()
        _ = try? await reader.value
        while observer.finishedExchanges.isEmpty { await Task.yield() }
        #expect(observer.finishedExchanges.first?.outcome == .cancelled)
        #expect(closed.withLock { $0 }, "the body stream is released")
        #expect(observer.events.contains { $0.kind == .streamClose && $0.attributes["by"] == "client" })
    }

    @Test func quietReconnectsAreBounded() async throws {
        let script = Script([{ Self.stream([": only a comment\n"]) }])
        let clock = ManualClock()
        let client = makeComponentsClient(script.transport, clock: clock)
        let reader = Task {
            for try await _ in client.events(Self.request, stream: EventStreamOptions(reconnectDelay: .seconds(1), maxReconnects: 2)) {}
        }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        await #expect(throws: ClientError.self) { try await reader.value }
        #expect(script.sent.count == 3)
    }

    /// Limited in time: before the fix the client reconnected without ever sleeping, so no sleeper ever came.
    @Test("`retry: 0` and a close after each event: the wait is floored, backs off, and the stream gives up (issue 44, item 4)",
          .timeLimit(.minutes(1)))
    func aServerThatEndsEveryConnectionAtOnceCannotStormTheClient() async throws {
        let script = Script([{ Self.stream(["retry: 0\ndata: x\n\n"]) }])
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(script.transport, observer: observer, clock: clock)
        let reader = Task {
            var seen = 0
            for try await _ in client.events(Self.request, stream: EventStreamOptions(maxTotalReconnects: 8)) { seen += 1 }
            return seen
        }
        for _ in 0..<8 {
            await clock.waitForSleepers(1)
            clock.advance(by: clock.requestedSleeps.last ?? .zero)
        }
        let expected: [Duration] = [.milliseconds(250), .milliseconds(250), .milliseconds(250), .milliseconds(500),
                                    .seconds(1), .seconds(2), .seconds(4), .seconds(8)]
        #expect(clock.requestedSleeps == expected)
        if clock.requestedSleeps != expected { reader.cancel() }  // today's storm never ends: do not wait for it
        let error = await #expect(throws: ClientError.self) { try await reader.value }
        #expect("\(error?.underlyingError as Any)".contains("reconnected 8 times"))
        #expect(script.sent.count == 9)
        #expect(observer.finishedExchanges.first?.attempts.count == 9)
    }

    @Test("a long-lived connection's end is not hurried, and the server's retry is held within range")
    func theServersRetryIsHeldWithinRange() {
        var schedule = EventStreamReconnection(options: EventStreamOptions())
        #expect(schedule.delay(serverRetry: Int.max) == .seconds(3600))
        #expect(schedule.delay(serverRetry: -5) == .milliseconds(250))
        #expect(schedule.delay(serverRetry: nil) == .seconds(3))
        for _ in 0..<6 {
            #expect(schedule.connectionEnded(delivered: 1, lasted: .seconds(90), streamed: true, serverRetry: 1000, reason: "ended")
                == .reconnect(after: .seconds(1)))
        }
        for _ in 0..<6 {
            #expect(schedule.connectionEnded(delivered: 0, lasted: .zero, streamed: false, serverRetry: nil, reason: "refused")
                == .reconnect(after: .seconds(3)))
        }
        #expect(schedule.quick == 0, "failures to connect are bounded by the limit in a row, not hurried")
    }

    @Test("an event past the parser's cap is dropped and recorded, and the stream goes on")
    func anOversizedEventIsRecordedAsDropped() async throws {
        let huge = "data: " + String(repeating: "z", count: (16 << 20) + 10) + "\n\n"
        let script = Script([{ Self.stream([huge, "data: after\n\n"]) }, { Self.stream([], status: .noContent) }])
        let clock = ManualClock()
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(script.transport, observer: observer, clock: clock)
        let reader = Task {
            var seen: [String] = []
            for try await event in client.events(Self.request, stream: EventStreamOptions(reconnectDelay: .zero)) { seen.append(event.data) }
            return seen
        }
        #expect(try await reader.value == ["after"])
        #expect(observer.events.contains { $0.kind == .streamEventDropped && $0.attributes["dropped"] == "1" })
    }
}
