// Fixtures for the Components, Bodies and Transfer tests.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// A client on `https://api.example.com/v1` with an injected clock and fixed ids.
func makeComponentsClient(
    _ transport: any ClientTransport,
    middlewares: [any ClientMiddleware] = [],
    observer: any ClientObserver = NoOpClientObserver(),
    clock: any Clock<Duration> = ContinuousClock(),
    base: String = "https://api.example.com/v1"
) -> Client {
    var configuration = ClientConfiguration()
    configuration.defaultHeaders = [.userAgent: "loupe-tests"]
    configuration.clock = clock
    return Client(baseURL: URL(string: base)!, transport: transport, middlewares: middlewares, observer: observer,
                  configuration: configuration)
}

/// A GET of `url` built by hand.
func get(_ url: String, headers: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: .get, url: URL(string: url)!, headerFields: headers)
}

/// What a transport read from a request body: the bytes and the size of every chunk.
struct ReadBody: Sendable {
    var bytes = Data()
    var chunkSizes: [Int] = []
    var largestChunk: Int { chunkSizes.max() ?? 0 }

    /// Reads the whole body the way a transport does: one chunk at a time.
    static func read(_ body: RequestBody?) async throws -> ReadBody {
        var read = ReadBody()
        guard let body else { return read }
        for try await chunk in try body.makeStream() {
            read.bytes.append(chunk)
            read.chunkSizes.append(chunk.count)
        }
        return read
    }
}

/// A fresh temporary folder for one test, removed afterwards.
func withScratchDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-components-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// The names in `directory`, sorted.
func contents(of directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

extension InMemoryClientObserver {
    /// The annotations of every started attempt, in order.
    var startedAnnotations: [AttemptAnnotations] {
        notifications.compactMap { if case .attemptStarted(let a) = $0 { a.annotations } else { nil } }
    }
}
