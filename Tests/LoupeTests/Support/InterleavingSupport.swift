// Fixtures for the auth, de-duplication and throttle tests: gates that hold a request where a test wants it,
// an observer a test can await, settable wall-clock time, and a bounded poll. No test sleeps.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

enum Interleaving {
    /// Holds every task that calls ``pass()`` until ``open()``; counts arrivals so a test can wait for them.
    final class Gate: Sendable {
        private struct State {
            var isOpen = false
            var arrivals = 0
            var nextID: UInt64 = 0
            var held: [UInt64: CheckedContinuation<Void, any Error>] = [:]
            var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        init() {}

        /// Tasks that have called ``pass()`` so far.
        var arrivals: Int { state.withLock { $0.arrivals } }

        /// Waits until the gate is open; throws `CancellationError` when the task is cancelled while held.
        func pass() async throws {
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let (decision, ready) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                        state.arrivals += 1
                        let ready = state.arrivalWaiters.filter { $0.count <= state.arrivals }.map(\.continuation)
                        state.arrivalWaiters.removeAll { $0.count <= state.arrivals }
                        if state.isOpen { return (true, ready) }
                        if Task.isCancelled { return (false, ready) }
                        state.held[id] = continuation
                        return (nil, ready)
                    }
                    ready.forEach { $0.resume() }
                    switch decision {
                    case true?: continuation.resume()
                    case false?: continuation.resume(throwing: CancellationError())
                    case nil: break
                    }
                }
            } onCancel: {
                state.withLock { $0.held.removeValue(forKey: id) }?.resume(throwing: CancellationError())
            }
        }

        /// Lets every held and future task through.
        func open() {
            let held = state.withLock { state in
                state.isOpen = true
                defer { state.held = [:] }
                return Array(state.held.values)
            }
            held.forEach { $0.resume() }
        }

        /// Suspends until at least `count` tasks have arrived (held or passed).
        func waitForArrivals(_ count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.arrivals >= count { return true }
                    state.arrivalWaiters.append((count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// A counter safe to bump from any task.
    final class Counter: Sendable {
        private let value = Mutex(0)
        init() {}
        @discardableResult func increment() -> Int { value.withLock { $0 += 1; return $0 } }
        var count: Int { value.withLock { $0 } }
    }

    /// Wall-clock time a test moves by hand.
    final class Now: Sendable {
        private let date: Mutex<Date>
        init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { date = Mutex(start) }
        var current: Date { date.withLock { $0 } }
        func advance(seconds: TimeInterval) { date.withLock { $0 += seconds } }
        var closure: @Sendable () -> Date { { self.current } }
    }

    /// Keeps middleware events and finished exchanges; a test can await a number of events of one kind.
    final class EventLog: ClientObserver {
        private struct State {
            var events: [ExchangeEvent] = []
            var finished: [ExchangeFinished] = []
            var attempts: [AttemptStarted] = []
            var waiters: [(kind: ExchangeEventKind, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        init() {}

        var events: [ExchangeEvent] { state.withLock { $0.events } }
        var finished: [ExchangeFinished] { state.withLock { $0.finished } }
        var attempts: [AttemptStarted] { state.withLock { $0.attempts } }

        func events(_ kind: ExchangeEventKind) -> [ExchangeEvent] { events.filter { $0.kind == kind } }

        func eventRecorded(_ event: ExchangeEvent) {
            let ready = state.withLock { state in
                state.events.append(event)
                let count = state.events.filter { $0.kind == event.kind }.count
                let ready = state.waiters.filter { $0.kind == event.kind && $0.count <= count }.map(\.continuation)
                state.waiters.removeAll { $0.kind == event.kind && $0.count <= count }
                return ready
            }
            ready.forEach { $0.resume() }
        }

        func attemptStarted(_ attempt: AttemptStarted) { state.withLock { $0.attempts.append(attempt) } }
        func exchangeFinished(_ exchange: ExchangeFinished) { state.withLock { $0.finished.append(exchange) } }

        /// Suspends until at least `count` events of `kind` have been recorded.
        func waitFor(_ kind: ExchangeEventKind, count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.events.filter({ $0.kind == kind }).count >= count { return true }
                    state.waiters.append((kind, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Yields until `condition` holds, at most `maxYields` times: for states with no event to await (how many
    /// requests wait inside a middleware). Returns whether it held, so a test records a failure instead of hanging.
    static func eventually(maxYields: Int = 200_000, _ condition: () -> Bool) async -> Bool {
        for _ in 0..<maxYields {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    /// Captures an async throwing call's outcome, so a test can assert on failures without `do`/`catch`.
    static func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// A client on `clock` with settable wall-clock time.
    static func client(
        _ transport: any ClientTransport, middlewares: [any ClientMiddleware], clock: any Clock<Duration> = ManualClock(),
        observer: any ClientObserver = NoOpClientObserver(), now: Now = Now(), base: String = "https://api.example.test"
    ) -> Client {
        var configuration = ClientConfiguration()
        configuration.clock = clock
        configuration.now = now.closure
        return Client(baseURL: URL(string: base)!, transport: transport, middlewares: middlewares,
                      observer: observer, configuration: configuration)
    }

    static func request(_ method: HTTPRequest.Method = .get, _ url: String = "https://api.example.test/items",
                        headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: url)!, headerFields: headers)
    }
}
