import Benchmark
import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// The time recording adds to the request path: the four `NetworkTraceInspector` calls a client makes for one
/// single-attempt exchange, timed one exchange (or one call) at a time, so the percentiles are per exchange (per
/// call), not averages over a batch.
///
/// `scalingFactor: .one`: one iteration = one exchange. Each iteration makes a fresh id (`ExchangeID.make()`) and
/// the four payloads before the clock starts (building them is the client's work, not the recorder's), then:
///
/// - `Recorder observer calls, one exchange`: times all four calls back to back;
/// - `Recorder observer <call>`: times only that call, making the other three outside the measurement.
///
/// The recorder records into a real `SQLiteTraceStore` (temp file), so its background writer competes for the
/// CPU as it does in an app. Every 500 exchanges the benchmark waits for `flush()` outside the measurement, so the
/// queue never fills (a full queue drops, which is cheaper and not the case to measure); a single drop or failed
/// write fails the benchmark.
func registerObserverBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 1_000,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 50_000
    )

    observerBenchmark("Recorder observer calls, one exchange", configuration, measuring: nil)
    for call in ObserverCall.allCases {
        observerBenchmark("Recorder observer \(call.rawValue)", configuration, measuring: call)
    }
}

enum ObserverCall: String, CaseIterable, Sendable {
    case exchangeStarted, attemptStarted, attemptFinished, exchangeFinished
}

private func observerBenchmark(_ name: String, _ configuration: Benchmark.Configuration, measuring only: ObserverCall?) {
    let rig = Holder<(folder: URL, store: SQLiteTraceStore, inspector: NetworkTraceInspector, count: Int)>()
    Benchmark(name, configuration: configuration) { benchmark in
        guard let (_, _, inspector, count) = rig.value else { return benchmark.error("no setup") }
        let payloads = ObserverPayloads(id: ExchangeID.make())
        if let only {
            for call in ObserverCall.allCases {
                if call == only { benchmark.startMeasurement() }
                payloads.deliver(call, to: inspector)
                if call == only { benchmark.stopMeasurement() }
            }
        } else {
            benchmark.startMeasurement()
            inspector.exchangeStarted(payloads.exchangeStarted)
            inspector.attemptStarted(payloads.attemptStarted)
            inspector.attemptFinished(payloads.attemptFinished)
            inspector.exchangeFinished(payloads.exchangeFinished)
            benchmark.stopMeasurement()
        }
        rig.value?.count = count + 1
        if (count + 1) % 500 == 0 {
            await inspector.flush()
            if inspector.droppedCount > 0 || inspector.failedWriteCount > 0 {
                benchmark.error("""
                    recorder dropped \(inspector.droppedCount), failed writes \(inspector.failedWriteCount) \
                    (\(inspector.lastWriteError ?? "no error"))
                    """)
            }
        }
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        rig.value = (folder, store, NetworkTraceInspector(store: store), 0)
    } teardown: {
        guard let (folder, store, inspector, _) = rig.value else { return }
        await inspector.shutdown()
        try? store.close()
        Fixtures.remove(folder)
        rig.value = nil
    }
}

/// What the client hands the observer for one `GET https://api.example.com/v1/ping` answered 200 with the
/// benchmarks' 34-byte JSON body on the first attempt.
struct ObserverPayloads {
    static let request = HTTPRequest(
        method: .get, scheme: "https", authority: "api.example.com", path: "/v1/ping",
        headerFields: [.accept: "application/json", .userAgent: "Loupe/0.1"])
    static let sentRequest: HTTPRequest = {
        var request = Self.request
        request.headerFields[.authorization] = "Bearer benchmark-token"
        return request
    }()
    static let response = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
    static let body = Data(Fixtures.responseJSON.utf8)

    let exchangeStarted: ExchangeStarted
    let attemptStarted: AttemptStarted
    let attemptFinished: AttemptFinished
    let exchangeFinished: ExchangeFinished

    init(id: UUID, now: Date = Date()) {
        exchangeStarted = ExchangeStarted(exchangeID: id, operation: "GET /v1/ping", request: Self.request, startedAt: now)
        attemptStarted = AttemptStarted(exchangeID: id, number: 1, request: Self.sentRequest, startedAt: now)
        var record = attemptStarted.record
        record.timings = AttemptTimings(start: now, requestSent: now, firstByte: now, end: now)
        record.response = Self.response
        attemptFinished = AttemptFinished(exchangeID: id, record: record, responseBody: Self.body)
        exchangeFinished = ExchangeFinished(
            exchangeID: id, outcome: .success, response: Self.response, responseBody: Self.body, endedAt: now,
            attempts: [record])
    }

    func deliver(_ call: ObserverCall, to observer: some ClientObserver) {
        switch call {
        case .exchangeStarted: observer.exchangeStarted(exchangeStarted)
        case .attemptStarted: observer.attemptStarted(attemptStarted)
        case .attemptFinished: observer.attemptFinished(attemptFinished)
        case .exchangeFinished: observer.exchangeFinished(exchangeFinished)
        }
    }
}
