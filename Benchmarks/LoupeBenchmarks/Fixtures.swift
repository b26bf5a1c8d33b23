import Foundation
import HTTPTypes
import IngestBaseline
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import Synchronization

/// The one small request every client benchmark sends: `GET /v1/ping`, body returned as `Data` (no JSON decoding).
struct Ping: Endpoint {
    typealias Response = Data
    var path: String { "/v1/ping" }
}

enum Fixtures {
    static let baseURL = URL(string: "https://api.example.com")!
    static let responseJSON = IngestSample.responseJSON

    /// What the transport hands back: 200, a content type, a 34-byte JSON body.
    static let transport: any ClientTransport = CannedTransport(json: responseJSON)

    /// A fresh, empty folder for one benchmark's store files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("loupe-benchmarks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func remove(_ folder: URL?) {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// A `RequestContext` as the client builds it. Its initialiser is internal to Loupe, so the raw-transport
    /// baseline borrows one from a real send instead of inventing its own.
    static func capturedContext() async throws -> (HTTPRequest, RequestContext) {
        let captured = Mutex<(HTTPRequest, RequestContext)?>(nil)
        let client = Client(baseURL: baseURL, transport: MockTransport { request, body, context in
            captured.withLock { $0 = (request, context) }
            return try await transport.send(request, body: body, context: context)
        })
        _ = try await client.send(Ping())
        guard let pair = captured.withLock({ $0 }) else { throw BenchmarkSetupError("the transport was never called") }
        return pair
    }

    /// A small exchange shaped like what the recorder makes of one `Ping` (``IngestSample``).
    static func sampleExchange(id: UUID = ExchangeID.make(), at start: Date = Date()) -> TraceExchange {
        IngestSample.exchange(id: id, at: start)
    }
}

/// Random (version 4 shaped) UUIDs without a system call each, for the one benchmark that shows what random ids
/// cost the store's `UNIQUE` index (the others use `ExchangeID.make()`, the time-ordered v7 ids Loupe records with).
/// Foundation's `UUID()` on Linux opens, reads and closes /dev/urandom for every id (≈ 2.7 µs here), which would
/// swamp what the store benchmarks measure.
struct FastRandomIDs {
    private var random = SplitMix64()

    mutating func next() -> UUID {
        var bytes = (random.next(), random.next())
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}

/// A small, fast, seedable generator (for ids and for the big store's data mix; not for secrets).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        state = seed ?? system.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A token provider that never refreshes: the resilient stack's bearer middleware then costs what it costs on the
/// happy path (read the current credential, set `Authorization`).
struct StaticTokenProvider: TokenProvider {
    func currentCredential() async throws -> Credential { Credential(token: "benchmark-token") }
    func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: "benchmark-token") }
}

extension ResilienceOptions {
    /// Everything `Client.resilient` assembles by default, plus bearer auth. Metrics and tracing stay on, but
    /// nothing bootstraps swift-metrics or swift-distributed-tracing here, so their backends are the NoOp ones.
    static var benchmark: ResilienceOptions {
        var options = ResilienceOptions()
        options.tokenProvider = StaticTokenProvider()
        return options
    }

    /// The stack issue #3's overhead aim lists: retry (budget, deadline), breaker, bearer auth, de-dup, throttle,
    /// metrics; no tracing, no conditional GET.
    static var issueStack: ResilienceOptions {
        var options = benchmark
        options.tracing = false
        options.conditionalGET = false
        options.annotatesMetadata = false
        return options
    }
}

struct BenchmarkSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Holds what a benchmark's setup made, for its body and teardown. Benchmarks run one at a time, on one task.
final class Holder<Value>: @unchecked Sendable {
    var value: Value?
    init() {}
}
