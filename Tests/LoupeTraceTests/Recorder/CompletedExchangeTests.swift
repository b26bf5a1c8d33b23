import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTrace
import Synchronization
import Testing

/// An adapter's exchange reported in one call (`CompletedExchangeObserver`, DECISIONS 150): the recorder stores
/// the same exchange as from `exchangeStarted` + `exchangeFinished`, and an observer that does not take whole
/// exchanges still hears the start when it happens.
@Suite struct CompletedExchangeTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = "tok-8d1f0c3e-completed"

    /// A clock that moves 10 ms per reading, and fixed ids, so two recordings of one exchange are equal.
    static func recording(_ observer: any ClientObserver, id: UUID) -> AdapterRecording {
        let ticks = Atomic<Int>(0)
        return AdapterRecording(
            observer: observer, adapter: RecordingAdapter.openAPIMiddleware, bodyCap: 1 << 20,
            now: { start.addingTimeInterval(Double(ticks.add(1, ordering: .relaxed).newValue) * 0.01) },
            makeID: { id })
    }

    /// One POST with a credential in a header and in the body, answered 201 with a token in the body.
    static func record(into recording: AdapterRecording) {
        let request = HTTPRequest(
            method: .post, scheme: "https", authority: "api.example.test", path: "/orders?page=1",
            headerFields: [.authorization: "Bearer \(secret)", .contentType: "application/json"])
        let exchange = recording.start(
            operation: "createOrder", request: request, requestBody: Data(#"{"item":"LP-1","password":"\#(secret)"}"#.utf8))
        exchange.finish(
            response: HTTPResponse(status: .created, headerFields: [.contentType: "application/json"]),
            body: Data(#"{"id":7,"token":"\#(secret)"}"#.utf8), firstByte: start.addingTimeInterval(0.005))
    }

    @Test func theRecorderStoresTheSameExchangeFromOneCallAsFromTwo() async throws {
        let id = UUID()
        let policy = RedactionPolicy(jsonFieldNames: ["password", "token"])
        let (oneStore, twoStore) = (InMemoryTraceStore(), InMemoryTraceStore())
        let one = NetworkTraceInspector(store: oneStore, configuration: .init(redaction: policy))
        let two = NetworkTraceInspector(store: twoStore, configuration: .init(redaction: policy))
        // A multiplexer is not a `CompletedExchangeObserver`: through it the recorder hears start, then finish.
        Self.record(into: Self.recording(one, id: id))
        Self.record(into: Self.recording(MultiplexClientObserver([two]), id: id))
        await one.shutdown()
        await two.shutdown()

        let fromOne = try #require(try oneStore.exchange(id: id))
        let fromTwo = try #require(try twoStore.exchange(id: id))
        #expect(fromOne == fromTwo)
        #expect(fromOne.operation == "createOrder" && fromOne.status == 201 && fromOne.outcome == .success)
        #expect(fromOne.attempts.count == 1 && fromOne.events.first?.attributes["adapter"] == RecordingAdapter.openAPIMiddleware)
        #expect(fromOne.requestHeaders.contains(TraceHeader(name: "Authorization", value: RedactionPolicy.marker)))
        let stored = try JSONEncoder().encode(fromOne)
        #expect(!String(decoding: stored, as: UTF8.self).contains(Self.secret), "redacted as from two calls")
        #expect(one.droppedCount == 0 && one.writtenCount == 1)
    }

    @Test func anObserverThatTakesWholeExchangesHearsNothingUntilTheEndThenOneCall() {
        let spy = CompletedSpy()
        let exchange = Self.recording(spy, id: UUID()).start(
            operation: "getUser", request: HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/u"),
            requestBody: nil)
        #expect(spy.calls.isEmpty)
        exchange.finish(response: HTTPResponse(status: .notFound), body: nil)
        #expect(spy.calls == ["completed \(exchange.id) httpError"])
    }

    @Test func anyOtherObserverHearsTheStartWhenItHappens() {
        let observer = InMemoryClientObserver()
        let exchange = Self.recording(observer, id: UUID()).start(
            operation: "getUser", request: HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/u"),
            requestBody: nil)
        guard case .exchangeStarted(let started)? = observer.notifications.first else {
            Issue.record("no start before the end: \(observer.notifications)")
            return
        }
        #expect(observer.notifications.count == 1 && started.exchangeID == exchange.id)
        exchange.finish(response: nil, body: nil, error: CancellationError())
        #expect(observer.finishedExchanges.map(\.outcome) == [.cancelled])
    }

    @Test func aWholeExchangeAfterShutdownIsCountedDropped() async {
        let inspector = NetworkTraceInspector(store: InMemoryTraceStore())
        await inspector.shutdown()
        Self.record(into: Self.recording(inspector, id: UUID()))
        #expect(inspector.droppedCount == 1 && inspector.writtenCount == 0)
    }
}

/// Says which call it received.
private final class CompletedSpy: CompletedExchangeObserver {
    private let log = Mutex<[String]>([])
    var calls: [String] { log.withLock { $0 } }

    func exchangeStarted(_ exchange: ExchangeStarted) { log.withLock { $0.append("started") } }
    func exchangeFinished(_ exchange: ExchangeFinished) { log.withLock { $0.append("finished") } }
    func exchangeCompleted(_ started: ExchangeStarted, _ finished: ExchangeFinished) {
        let line = started.exchangeID == finished.exchangeID ? "completed \(started.exchangeID) \(finished.outcome)" : "ids differ"
        log.withLock { $0.append(line) }
    }
}
