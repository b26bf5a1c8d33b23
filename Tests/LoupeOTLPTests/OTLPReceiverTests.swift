import Foundation
import Loupe
import LoupeTrace
@testable import LoupeTestSupport
import Testing
@testable import LoupeOTLP
@testable import loupe

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `.ci/otlp-receiver.py`, an OTLP/HTTP receiver that decodes with the real `opentelemetry-proto` package, run with
/// the CI's Python. Nothing here blocks a thread of the cooperative pool: the port is read on a thread of its own.
final class OTLPReceiver {
    static let available = ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] != nil
    static let skipReason: Comment = "LOUPE_CI_PYTHON is unset: run `python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt` and export LOUPE_CI_PYTHON=$PWD/.ci/venv/bin/python"

    let port: Int
    let output: URL
    private let process: Process

    private init(port: Int, output: URL, process: Process) {
        (self.port, self.output, self.process) = (port, output, process)
    }

    /// Starts the receiver on `port` (0: a free one) and waits for it to listen.
    static func start(port: Int = 0, arguments: [String] = []) async throws -> OTLPReceiver {
        let python = try #require(ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"])
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-otlp-\(UUID().uuidString).jsonl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent(".ci/otlp-receiver.py").path, String(port), output.path] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = stdout.fileHandleForReading
        let line = await PeerOutput.firstLine(reader)
        guard let port = Int(line) else {
            kill(process.processIdentifier, SIGKILL)
            throw ReceiverError(description: "otlp-receiver.py did not print its port (is \(port) taken?)")
        }
        return OTLPReceiver(port: port, output: output, process: process)
    }

    var endpoint: OTLPEndpoint { get throws { try OTLPEndpoint("http://127.0.0.1:\(port)/v1/traces") } }

    /// Every span received, as the receiver decoded it.
    func spans() throws -> [[String: Any]] {
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Kills the receiver and returns once it is gone (its port then refuses). `waitUntilExit` blocks, so it runs on
    /// a dispatch thread, not one of the cooperative pool's.
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let process = process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: output)
    }

    struct ReceiverError: Error, CustomStringConvertible { var description: String }
}

/// Stores exported to a receiver nobody here wrote: every exchange and attempt arrives once, with the ids,
/// parents, times and attributes the store holds.
@Suite(.enabled(if: OTLPReceiver.available, OTLPReceiver.skipReason))
struct OTLPReceiverTests {
    static func store(_ exchanges: [TraceExchange]) throws -> (SQLiteTraceStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-otlp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("traces.sqlite")
        try SQLiteTraceStore(path: path.path).write(exchanges)
        return (try SQLiteTraceStore(path: path.path, readOnly: true), folder)
    }

    /// Twenty exchanges: retried, failed, traced by a tracer of their own, one from a linked app.
    static var exchanges: [TraceExchange] {
        (0..<20).map { index in
            var exchange = OTLPEncodingTests.retried
            exchange.id = UUID()
            exchange.startedAt = OTLPEncodingTests.t0 + Double(index)
            exchange.endedAt = exchange.startedAt + 0.25
            exchange.attempts = exchange.attempts.map {
                var attempt = $0
                attempt.startedAt += Double(index)
                attempt.endedAt = attempt.endedAt.map { $0 + Double(index) }
                return attempt
            }
            if index % 5 == 1 {
                exchange.attempts.removeLast()
                exchange.outcome = .httpError
                exchange.status = 503
            }
            if index == 2 {
                exchange.requestHeaders = [TraceHeader(name: "traceparent", value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]
            }
            if index == 3 { exchange.source = TraceSource(app: "checkout", host: "web-1", pid: 7) }
            return exchange
        }
    }

    @Test func everyExchangeAndAttemptArrivesOnceWithItsIdsTimesAndAttributes() async throws {
        let receiver = try await OTLPReceiver.start()
        let exchanges = Self.exchanges
        let (store, folder) = try Self.store(exchanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let delivery = OTLPDelivery(transport: OTLPHTTPTransport(endpoint: try receiver.endpoint))
        let counts = try await OTLPStoreExport.run(from: store, matching: nil, through: delivery, exchangesPerRequest: 3).counts
        let spans = try receiver.spans()
        let expected = OTLPTraceRequest.spanCount(of: exchanges)
        #expect(counts.deliveredSpans == expected)
        #expect(counts.deliveredBatches == 7)
        #expect(counts.undeliveredSpans == 0)
        #expect(spans.count == expected)
        #expect(Set(spans.map { "\($0["trace_id"]!)/\($0["span_id"]!)" }).count == expected, "a span arrived twice")
        for exchange in exchanges {
            let ids = OTLPSpanIDs(exchange)
            let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
            let mine = spans.filter { ($0["attributes"] as? [String: Any])?["loupe.exchange_id"] as? String == exchange.id.uuidString }
            #expect(mine.count == 1 + exchange.attempts.count)
            let parent = try #require(mine.first { $0["parent_span_id"] as? String == "" })
            #expect(parent["name"] as? String == "getUser")
            #expect(parent["kind"] as? Int == 3)
            #expect(parent["trace_id"] as? String == hex(ids.traceID))
            #expect(parent["span_id"] as? String == hex(ids.exchangeSpanID))
            #expect((parent["start"] as? NSNumber)?.uint64Value == RecordedSpan.unixNanoseconds(exchange.startedAt))
            #expect((parent["end"] as? NSNumber)?.uint64Value == RecordedSpan.unixNanoseconds(exchange.endedAt!))
            #expect(parent["service"] as? String == (exchange.source?.app ?? "loupe"))
            let attributes = try #require(parent["attributes"] as? [String: Any])
            #expect(attributes["http.request.method"] as? String == "GET")
            #expect(attributes["url.full"] as? String == exchange.url)
            #expect(attributes["server.address"] as? String == "127.0.0.1")
            #expect(attributes["server.port"] as? Int == 8080)
            #expect(attributes["http.response.status_code"] as? Int == exchange.status)
            for attempt in exchange.attempts {
                let span = try #require(mine.first { ($0["attributes"] as? [String: Any])?["loupe.attempt"] as? Int == attempt.number })
                #expect(span["parent_span_id"] as? String == hex(ids.exchangeSpanID))
                #expect(span["span_id"] as? String == hex(ids.spanID(.attempt(attempt.number))))
                #expect(span["trace_id"] as? String == hex(ids.traceID))
                #expect((span["start"] as? NSNumber)?.uint64Value == RecordedSpan.unixNanoseconds(attempt.startedAt))
                #expect((span["end"] as? NSNumber)?.uint64Value == RecordedSpan.unixNanoseconds(attempt.endedAt!))
                let attributes = try #require(span["attributes"] as? [String: Any])
                #expect(attributes["http.request.resend_count"] as? Int == (attempt.number > 1 ? attempt.number - 1 : nil))
                #expect(attributes["error.type"] as? String == (attempt.status == 503 ? "503" : nil))
            }
        }
        let traced = try #require(spans.first { $0["span_id"] as? String == "00f067aa0ba902b7" })
        #expect(traced["trace_id"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    @Test func aReceiverAnswering503FirstGetsEverySpanOnceAfterItsRetryAfter() async throws {
        let receiver = try await OTLPReceiver.start(arguments: ["--fail-first", "3", "--retry-after", "0"])
        let exchanges = Self.exchanges
        let (store, folder) = try Self.store(exchanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let delivery = OTLPDelivery(transport: OTLPHTTPTransport(endpoint: try receiver.endpoint))
        let counts = try await OTLPStoreExport.run(from: store, matching: nil, through: delivery, exchangesPerRequest: 10).counts
        let spans = try receiver.spans()
        #expect(counts.retries == 3)
        #expect(counts.undeliveredSpans == 0)
        #expect(spans.count == OTLPTraceRequest.spanCount(of: exchanges))
        #expect(Set(spans.map { "\($0["span_id"]!)" }).count == spans.count)
    }

    @Test func aReceiverThatIsGoneLeavesEverySpanCountedAsNotDelivered() async throws {
        let receiver = try await OTLPReceiver.start()
        let endpoint = try receiver.endpoint
        await receiver.stop()
        let exchanges = Self.exchanges
        let (store, folder) = try Self.store(exchanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let delivery = OTLPDelivery(
            transport: OTLPHTTPTransport(endpoint: endpoint),
            settings: .init(initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(4), maxAttempts: 3))
        let counts = try await OTLPStoreExport.run(from: store, matching: nil, through: delivery, exchangesPerRequest: 4).counts
        #expect(counts.deliveredSpans == 0)
        #expect(counts.failedSpans == OTLPTraceRequest.spanCount(of: exchanges))
        #expect(counts.retries == 2, "the first request is retried; the rest get one try each in the outage")
        #expect(counts.failedBatches == 5)
    }
}
