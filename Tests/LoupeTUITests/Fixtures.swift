import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Synchronization

/// Builders for exchanges, stores and replayers shared by the tests.
enum Fixture {
    /// 2023-11-14 22:13:20 UTC; tests render clocks in GMT.
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    static func id(_ number: Int) -> UUID {
        UUID(uuidString: "00000000-0000-0000-0000-" + String(format: "%012d", number))!
    }

    static func exchange(
        _ number: Int, method: String = "GET", url: String? = nil, status: Int? = 200, duration: Double? = 0.120,
        outcome: ExchangeOutcome = .success, error: String? = nil, attempts: Int = 1, replayOf: UUID? = nil,
        requestHeaders: [TraceHeader] = [TraceHeader(name: "Accept", value: "application/json")],
        requestBody: TraceBody? = nil,
        responseHeaders: [TraceHeader] = [TraceHeader(name: "Content-Type", value: "application/json")],
        responseBody: TraceBody? = nil, events: [TraceEvent] = []
    ) -> TraceExchange {
        let start = epoch.addingTimeInterval(Double(number))
        let end = duration.map { start.addingTimeInterval($0) }
        let tries = (0..<attempts).map { index in
            TraceAttempt(
                number: index + 1, startedAt: start.addingTimeInterval(Double(index) * 0.010),
                requestSentAt: start.addingTimeInterval(Double(index) * 0.010 + 0.001),
                firstByteAt: start.addingTimeInterval(Double(index) * 0.010 + 0.005),
                endedAt: start.addingTimeInterval(Double(index) * 0.010 + 0.008),
                status: index == attempts - 1 ? status : 503, error: index == attempts - 1 ? error : nil,
                circuitState: "closed", retryReason: index > 0 ? "status 503" : nil, retryDelay: index > 0 ? 0.2 : nil)
        }
        return TraceExchange(
            id: id(number), operation: "op\(number)", method: method,
            url: url ?? "https://api.example.com/items/\(number)", startedAt: start, endedAt: end, outcome: outcome,
            status: status, error: error, requestHeaders: requestHeaders, requestBody: requestBody,
            responseHeaders: responseHeaders, responseBody: responseBody, attempts: tries, events: events,
            replayOf: replayOf)
    }

    static func body(_ text: String, truncatedFrom size: Int? = nil) -> TraceBody {
        TraceBody(data: Data(text.utf8), size: size ?? text.utf8.count, isTruncated: size != nil)
    }

    /// The time double clicks are measured with: tests move it by hand.
    static let clock = ManualInstant()

    static func store(_ exchanges: [TraceExchange]) throws -> InMemoryTraceStore {
        let store = InMemoryTraceStore()
        try store.write(exchanges)
        return store
    }

    /// An app over `store` on an 80×24 in-memory screen, already polled once and drawn.
    static func app(_ store: any TraceStore, replayer: (any ExchangeReplaying)? = nil, width: Int = 80,
                    height: Int = 24, wallClock: @escaping @Sendable () -> Date = { Date() }) -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: replayer, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(),
                               size: Size(width: width, height: height), now: { Fixture.clock.now },
                               wallClock: wallClock)
        let screen = InMemoryTerminal(width: width, height: height)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }
}

/// A replayer that records what it was asked and optionally writes the replay into a store.
final class FakeReplayer: ExchangeReplaying {
    let store: InMemoryTraceStore?
    let failure: String?
    private let replayedIDList = Mutex<[UUID]>([])
    private let exchanges = Mutex<[TraceExchange]>([])

    init(store: InMemoryTraceStore? = nil, failure: String? = nil) {
        self.store = store
        self.failure = failure
    }

    var replayedIDs: [UUID] { replayedIDList.withLock { $0 } }
    /// What was sent, as given.
    var replayed: [TraceExchange] { exchanges.withLock { $0 } }

    func replay(_ exchange: TraceExchange) async throws -> String {
        replayedIDList.withLock { $0.append(exchange.id) }
        exchanges.withLock { $0.append(exchange) }
        if let failure { throw FakeError(message: failure) }
        var copy = exchange
        copy.id = UUID()
        copy.replayOf = exchange.id
        try store?.write([copy])
        return "replayed → 200 in 12 ms"
    }

    func replayResult(_ exchange: TraceExchange) async throws -> ExchangeReplayResult {
        ExchangeReplayResult(message: try await replay(exchange), status: 200, duration: .milliseconds(12))
    }
}

struct FakeError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A store whose reads fail while `isFailing` is set.
final class FlakyStore: TraceStore {
    let inner: InMemoryTraceStore
    private let failing = Mutex(false)

    init(_ inner: InMemoryTraceStore) { self.inner = inner }

    var isFailing: Bool {
        get { failing.withLock { $0 } }
        set { failing.withLock { $0 = newValue } }
    }

    private func check() throws {
        if isFailing { throw FakeError(message: "database is locked") }
    }

    func write(_ exchanges: [TraceExchange]) throws { try inner.write(exchanges) }
    func recent(limit: Int) throws -> [TraceSummary] { try check(); return try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try check()
        return try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try check(); return try inner.exchange(id: id) }
    func count() throws -> Int { try check(); return try inner.count() }
}

/// A settable instant for the app's double-click timing.
final class ManualInstant: Sendable {
    private let value = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { value.withLock { $0 } }
    func advance(by duration: Duration) { value.withLock { $0 = $0.advanced(by: duration) } }
}

extension InMemoryTerminal {
    /// The screen row containing `text`, if any.
    func row(containing text: String) -> Int? {
        lines.firstIndex { $0.contains(text) }
    }
}

/// A door a test holds shut: ``pass()`` waits while it is held, and goes through once it is released.
final class TestGate: Sendable {
    private let held = Mutex(false)
    private let opened = DispatchSemaphore(value: 0)

    func hold() { held.withLock { $0 = true } }

    func release() {
        held.withLock { $0 = false }
        opened.signal()
    }

    func pass() {
        guard held.withLock({ $0 }) else { return }
        opened.wait()
        opened.signal()  // the next caller goes through too
    }
}

/// A store that counts the whole-list `COUNT`s asked of it (a count of a million rows is what a frame can't afford),
/// and can hold rank counts back until the test lets them through (``holdRanks()``, ``releaseRanks()``).
final class CountingStore: TraceStore {
    let inner: InMemoryTraceStore
    private let counts = Mutex((total: 0, rank: 0))
    private let gate = TestGate()

    init(_ inner: InMemoryTraceStore) { self.inner = inner }

    /// From now on a rank count waits until ``releaseRanks()``.
    func holdRanks() { gate.hold() }

    /// Lets waiting and later rank counts through.
    func releaseRanks() { gate.release() }

    /// `exchangeCount` calls so far.
    var totals: Int { counts.withLock { $0.total } }
    /// `exchangeRank` calls so far.
    var ranks: Int { counts.withLock { $0.rank } }

    func write(_ exchanges: [TraceExchange]) throws { try inner.write(exchanges) }
    func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
    func count() throws -> Int { try inner.count() }
    func exchangePage(_ query: ExchangeQuery, from anchor: ExchangeAnchor, limit: Int) throws -> [TraceSummary] {
        try inner.exchangePage(query, from: anchor, limit: limit)
    }
    func exchangeCount(_ query: ExchangeQuery) throws -> Int {
        counts.withLock { $0.total += 1 }
        return try inner.exchangeCount(query)
    }
    func exchangeTotal(_ query: ExchangeQuery) throws -> ExchangeTotal {
        counts.withLock { $0.total += 1 }
        let total = try inner.exchangeTotal(query)
        try writeLate()
        return total
    }
    func exchangeRank(_ query: ExchangeQuery, of summary: TraceSummary) throws -> Int {
        counts.withLock { $0.rank += 1 }
        gate.pass()
        return try inner.exchangeRank(query, of: summary)
    }
    func exchangeArrivals(_ query: ExchangeQuery, after sequence: Int64, before anchor: TraceSummary?) throws -> ExchangeArrivals {
        try inner.exchangeArrivals(query, after: sequence, before: anchor)
    }
    func changeMarker() throws -> StoreChangeMarker {
        let marker = try inner.changeMarker()
        try writeLate()
        return marker
    }

    private let lateWrite = Mutex<[TraceExchange]>([])

    /// Writes `exchanges` just after the next change marker is read, or the next count made (as another process
    /// may commit between two reads).
    func writeAfterNextRead(_ exchanges: [TraceExchange]) { lateWrite.withLock { $0 = exchanges } }

    private func writeLate() throws {
        let late = lateWrite.withLock { pending in defer { pending = [] }; return pending }
        if !late.isEmpty { try inner.write(late) }
    }
}
