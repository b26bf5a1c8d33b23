import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization

// Issue 30's recording budget: one server-sent event stream of COUNT events read with `client.events` from an
// in-process streaming transport (no network, no server: only the client's parser, the observer calls and the
// recorder are counted), as fast as the reader takes them.
//
//   StreamProfile MODE COUNT
//
// MODE: `bare` (nothing records) | `recorded` (a NetworkTraceInspector over an in-memory store, the recorder's
// default message cap of 10,000 kept) | `sqlite` (the same into a SQLite file). Prints CPU and wall time per
// event, the peak resident size, and what the store kept. stream-budget.sh runs it.
let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0,
      ["bare", "recorded", "sqlite"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: StreamProfile bare|recorded|sqlite COUNT\n".utf8))
    exit(2)
}
let mode = arguments[1]

/// `count` events of a model-like JSON token each (about 60 bytes on the wire), 64 to a chunk, made as the reader asks.
enum EventBody {
    /// The next event to write; one reader, so the atomic is only there to make the closure Sendable.
    final class Cursor: Sendable {
        let next = Atomic<Int>(0)
    }

    static func make(count: Int) -> AsyncThrowingStream<Data, any Error> {
        let cursor = Cursor()
        return AsyncThrowingStream(unfolding: {
            let first = cursor.next.load(ordering: .relaxed)
            guard first < count else { return nil }
            let last = min(count, first + 64)
            cursor.next.store(last, ordering: .relaxed)
            var chunk = ""
            for index in first..<last {
                chunk += "id: \(index)\nevent: token\ndata: {\"n\":\(index),\"token\":\"loupe\"}\n\n"
            }
            return Data(chunk.utf8)
        })
    }
}

func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return micros(usage.ru_utime) + micros(usage.ru_stime)
}

func peakResidentMB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

@concurrent func run(mode: String, count: Int) async throws {
    let transport = StreamingMockTransport { request, _, _ in
        // The client reconnects after the stream ends, with Last-Event-ID: 204 says the stream is over.
        if request.headerFields[HTTPField.Name("Last-Event-ID")!] != nil {
            return StreamedResponse(head: HTTPResponse(status: .noContent), body: AsyncThrowingStream { $0.finish() })
        }
        return StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]),
                                body: EventBody.make(count: count))
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-stream-\(getpid()).sqlite").path
    let store: any TraceStore = mode == "sqlite" ? try SQLiteTraceStore(path: file, bounds: nil) : InMemoryTraceStore()
    let inspector = mode == "bare" ? nil : NetworkTraceInspector(store: store)
    let client = Client(baseURL: URL(string: "https://api.example.test")!, transport: transport,
                        observer: inspector ?? NoOpClientObserver())
    let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/completions")
    let options = EventStreamOptions(reconnectDelay: .zero)
    let cpu = processCPUMicroseconds()
    let start = ContinuousClock.now
    var received = 0
    do {
        for try await _ in client.events(request, options: RequestOptions(operation: "completion"), stream: options) {
            received += 1
        }
    } catch {}
    let read = start.duration(to: .now)
    await inspector?.flush()
    let cpuPerEvent = (processCPUMicroseconds() - cpu) / Double(count)
    let seconds = Double(read.components.seconds) + Double(read.components.attoseconds) / 1e18
    var kept = ""
    if let inspector {
        await inspector.shutdown()
        if let exchange = try store.recent(limit: 1).first.flatMap({ try store.exchange(id: $0.id) }), let stream = exchange.stream {
            kept = ", kept \(stream.messages.count), omitted \(stream.omittedCount), received \(stream.receivedCount)"
        }
    }
    print(String(format: "%@: %d events (%d read), %.3f µs CPU each, %.3f µs wall each (%.0f events/s), peak RSS %.1f MB%@",
                 mode, count, received, cpuPerEvent, seconds * 1e6 / Double(count), Double(count) / seconds,
                 peakResidentMB(), kept))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
}

try await run(mode: mode, count: count)
