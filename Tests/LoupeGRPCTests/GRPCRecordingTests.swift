import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Loupe
import LoupeGRPC
import LoupeQuery
import LoupeTrace
@testable import LoupeTestSupport
import Testing

/// A secret the app sends as `authorization` metadata, which the Python server echoes back in a trailer.
let metadataSecret = "grpc-secret-7d41e2"

/// The interceptor against Python's grpcio serving Fixtures/loupe_test.proto: every kind of call, a retry policy's
/// attempts, a deadline, a cancellation; each checked in a real SQLite store, and the secret absent from its bytes.
@Suite(.enabled(if: GRPCPeer.available, GRPCPeer.skipReason), .serialized)
struct GRPCRecordingTests {
    static func method(_ name: String, _ type: MethodDescriptor.RPCType) -> MethodDescriptor {
        MethodDescriptor(fullyQualifiedService: "loupe.test.Echo", method: name, type: type)
    }

    static var metadata: Metadata { ["authorization": "Bearer \(metadataSecret)", "x-request-tag": "tag-1"] }

    /// Runs `body` with a client on the Python server, the interceptor recording into a SQLite store; the recorder
    /// is shut down before `check` reads the store and its file.
    typealias Client = GRPCClient<LoupeGRPCTransport<SlowStreamTransport<HTTP2ClientTransport.Posix>>>

    /// `streamDelay` holds each stream back after grpc-swift wrote the call's deadline (``SlowStreamTransport``).
    func withRecordedClient(
        streamDelay: Duration = .zero, hidingTheStreamRequest: Bool = false,
        _ body: (Client) async throws -> Void,
        check: ([TraceExchange], URL) throws -> Void
    ) async throws {
        let peer = try await GRPCPeer.start()
        defer { peer.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-grpc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("traces.sqlite")
        let store = try SQLiteTraceStore(path: file.path)
        let inspector = NetworkTraceInspector(store: store)
        let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50),
                                backoffMultiplier: 1, retryableStatusCodes: [.unavailable])
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: peer.port), transportSecurity: .plaintext,
            serviceConfig: ServiceConfig(methodConfig: [MethodConfig(
                names: [MethodConfig.Name(service: "loupe.test.Echo", method: "Flaky")], executionPolicy: .retry(retry))]))
        // grpc-swift 2: one interceptor where the client is made, and the transport wrapped (LoupeGRPC):
        let client = GRPCClient(transport: LoupeGRPCTransport(wrapping: SlowStreamTransport(
            base: transport, delay: streamDelay, hidesTheRequest: hidingTheStreamRequest)),
                                interceptors: [LoupeGRPCInterceptor(recorder: inspector)])
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await client.runConnections() }
            try await body(client)
            client.beginGracefulShutdown()
        }
        await inspector.shutdown()
        let exchanges = try store.exchanges(matching: nil, limit: 1000).sorted { $0.startedAt < $1.startedAt }
        try check(exchanges, file)
    }

    func unary(_ client: Client, _ name: String, _ message: [UInt8],
               options: CallOptions = .defaults) async throws -> [UInt8] {
        try await client.unary(
            request: ClientRequest(message: message, metadata: Self.metadata), descriptor: Self.method(name, .unary),
            serializer: RawBytesSerializer(), deserializer: RawBytesDeserializer(), options: options) { try $0.message }
    }

    func header(_ name: String, _ headers: [TraceHeader]) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    @Test func unaryCallIsOneExchangeWithItsMessagesStatusAndMetadata() async throws {
        let ping = TestMessage.ping("hello", number: 42)
        var answer: [UInt8] = []
        try await withRecordedClient({ client in
            answer = try await unary(client, "Unary", ping)
        }, check: { exchanges, file in
            let exchange = try #require(exchanges.first)
            #expect(exchanges.count == 1)
            #expect(exchange.operation == "loupe.test.Echo/Unary")
            #expect(exchange.method == "POST")
            #expect(exchange.url.hasSuffix("/loupe.test.Echo/Unary"))
            #expect(exchange.outcome == .success)
            let stream = try #require(exchange.stream)
            #expect(stream.kind == .grpc)
            #expect(stream.code == "OK")
            #expect(stream.closeCode == 0)
            #expect(stream.messages.map(\.direction) == [.sent, .received])
            #expect(stream.messages.first.map { Array($0.payload) } == ping)
            #expect(stream.messages.last.map { Array($0.payload) } == answer)
            #expect(stream.messages.first?.size == ping.count)
            #expect(header("x-request-tag", exchange.requestHeaders) == "tag-1")
            #expect(header("content-type", exchange.requestHeaders) == "application/grpc")
            #expect(header("x-served-by", exchange.responseHeaders) == "grpcio")
            #expect(header("grpc-status", exchange.responseHeaders) == "0")
            let attempt = try #require(exchange.attempts.first)
            #expect(attempt.firstByteAt != nil && attempt.endedAt != nil)
            // The metadata secret, sent and echoed back in a trailer, is nowhere in the store's bytes.
            #expect(header("authorization", exchange.requestHeaders) != "Bearer \(metadataSecret)")
            #expect(header("x-echo-authorization", exchange.responseHeaders) != nil)
            try expectNoSecret(in: file)
        })
        #expect(answer.count > 0)
    }

    @Test func streamingCallsRecordEveryMessageInOrder() async throws {
        try await withRecordedClient({ client in
            // Client streaming: three pings, one pong.
            _ = try await client.clientStreaming(
                request: StreamingClientRequest(of: [UInt8].self, metadata: Self.metadata) { writer in
                    for text in ["a", "b", "c"] { try await writer.write(TestMessage.ping(text)) }
                },
                descriptor: Self.method("Collect", .clientStreaming), serializer: RawBytesSerializer(),
                deserializer: RawBytesDeserializer(), options: .defaults) { try $0.message }
            // Server streaming: one ping, four pongs.
            let received = try await client.serverStreaming(
                request: ClientRequest(message: TestMessage.ping("x", number: 4), metadata: Self.metadata),
                descriptor: Self.method("Expand", .serverStreaming), serializer: RawBytesSerializer(),
                deserializer: RawBytesDeserializer(), options: .defaults) { response in
                var count = 0
                for try await _ in response.messages { count += 1 }
                return count
            }
            #expect(received == 4)
            // Bidirectional: two pings, two pongs.
            _ = try await client.bidirectionalStreaming(
                request: StreamingClientRequest(of: [UInt8].self, metadata: Self.metadata) { writer in
                    try await writer.write(contentsOf: [TestMessage.ping("p"), TestMessage.ping("q")])
                },
                descriptor: Self.method("Chat", .bidirectionalStreaming), serializer: RawBytesSerializer(),
                deserializer: RawBytesDeserializer(), options: .defaults) { response in
                var count = 0
                for try await _ in response.messages { count += 1 }
                return count
            }
        }, check: { exchanges, file in
            #expect(exchanges.map(\.operation) == ["loupe.test.Echo/Collect", "loupe.test.Echo/Expand", "loupe.test.Echo/Chat"])
            let counts = exchanges.map { ($0.stream?.sentCount ?? -1, $0.stream?.receivedCount ?? -1) }
            #expect(counts.map(\.0) == [3, 1, 2])
            #expect(counts.map(\.1) == [1, 4, 2])
            #expect(exchanges.allSatisfy { $0.stream?.code == "OK" && $0.outcome == .success })
            let collect = exchanges[0].stream?.messages.map { Array($0.payload) } ?? []
            #expect(collect.prefix(3) == [TestMessage.ping("a"), TestMessage.ping("b"), TestMessage.ping("c")])
            let times = exchanges[1].stream?.messages.map(\.at) ?? []
            #expect(times == times.sorted())
            try expectNoSecret(in: file)
        })
    }

    @Test func retryPolicyAttemptsAreEachRecordedUnavailableThenOK() async throws {
        try await withRecordedClient({ client in
            _ = try await unary(client, "Flaky", TestMessage.ping("flaky-\(UUID().uuidString)"))
        }, check: { exchanges, file in
            #expect(exchanges.count == 2)
            #expect(exchanges.map { $0.stream?.code } == ["UNAVAILABLE", "OK"])
            #expect(exchanges.first?.stream?.closeReason == "warming up")
            #expect(exchanges.first?.outcome == .httpError)
            #expect(exchanges.map { $0.attempts.first?.number } == [1, 2])
            try expectNoSecret(in: file)
        })
    }

    /// A 3 s call given 1 s: it must fail, and the recording says how.
    private func callSlowWithOneSecondDeadline(_ client: Client) async {
        var options = CallOptions.defaults
        options.timeout = .seconds(1)
        await #expect(throws: RPCError.self) {
            _ = try await unary(client, "Slow", TestMessage.ping("slow", number: 3_000), options: options)
        }
    }

    @Test func deadlineExceededIsRecordedWithTheDeadline() async throws {
        try await withRecordedClient({ client in
            await callSlowWithOneSecondDeadline(client)
        }, check: { exchanges, _ in
            let exchange = try #require(exchanges.first)
            #expect(exchange.stream?.code == "DEADLINE_EXCEEDED",
                    "\(header("grpc-timeout", exchange.requestHeaders) ?? "-") \(exchange.duration ?? -1) \(exchange.error ?? "")")
            #expect(exchange.stream?.closedBy == "client")
            // The deadline went as `grpc-timeout`, and is kept with the request.
            #expect(header("grpc-timeout", exchange.requestHeaders) != nil)
            #expect((exchange.duration ?? 10) < 3)
        })
    }

    /// grpc-swift writes the deadline before it asks for the stream and runs interceptors once the stream is open:
    /// a call that waited 0.6 s of its 1 s for its stream ran out of time 0.4 s into what the interceptor saw, and
    /// is still DEADLINE_EXCEEDED (it read CANCELLED when the interceptor counted from its own start).
    @Test func deadlineIsCountedFromWhenGRPCSwiftSetItNotFromTheInterceptor() async throws {
        try await withRecordedClient(streamDelay: .milliseconds(600), { client in
            await callSlowWithOneSecondDeadline(client)
        }, check: { exchanges, _ in
            let exchange = try #require(exchanges.first)
            #expect(exchange.stream?.code == "DEADLINE_EXCEEDED", "\(exchange.duration ?? -1) \(exchange.error ?? "")")
            #expect((exchange.duration ?? 10) < 0.9)
        })
    }

    /// Without the transport's word the interceptor counts from its own start, and reads that same call as
    /// CANCELLED: the case above fails on the interceptor alone (it did before ``LoupeGRPCTransport``).
    @Test func theInterceptorAloneMisreadsADeadlineAfterASlowStream() async throws {
        try await withRecordedClient(streamDelay: .milliseconds(600), hidingTheStreamRequest: true, { client in
            await callSlowWithOneSecondDeadline(client)
        }, check: { exchanges, _ in
            let exchange = try #require(exchanges.first)
            #expect(exchange.stream?.code == "CANCELLED")
        })
    }

    /// The app's own cancellation of a call with a deadline far off stays CANCELLED.
    @Test func cancellingACallWithADeadlineIsStillCancelled() async throws {
        try await withRecordedClient({ client in
            var options = CallOptions.defaults
            options.timeout = .seconds(20)
            let call = Task {
                try await unary(client, "Slow", TestMessage.ping("cancel", number: 5_000), options: options)
            }
            // Real time against the real peer: the call reaches the server's handler before it is cancelled.
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            _ = await call.result
        }, check: { exchanges, _ in
            let exchange = try #require(exchanges.first)
            #expect(exchange.stream?.code == "CANCELLED")
            #expect(exchange.outcome == .cancelled)
        })
    }

    @Test func cancelledCallIsRecordedAsCancelledByTheClient() async throws {
        try await withRecordedClient({ client in
            let call = Task {
                try await unary(client, "Slow", TestMessage.ping("cancel", number: 5_000))
            }
            // Against the real Python peer over HTTP/2, so no clock can be injected: the pause lets the call reach the
            // server's 5 s handler before it is cancelled (a cancel before it is sent would test nothing).
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            _ = await call.result
        }, check: { exchanges, _ in
            let exchange = try #require(exchanges.first)
            #expect(exchange.stream?.code == "CANCELLED")
            #expect(exchange.stream?.closedBy == "client")
            #expect(exchange.outcome == .cancelled)
            #expect((exchange.duration ?? 10) < 4)
        })
    }
}

/// Every byte of the store's files (the database and its write-ahead log) holds no `metadataSecret`; and the
/// check can fail: the store holds the call's other metadata.
func expectNoSecret(in file: URL) throws {
    var all = Data()
    for path in [file.path, file.path + "-wal"] where FileManager.default.fileExists(atPath: path) {
        all += try Data(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(all.range(of: Data(metadataSecret.utf8)) == nil, "the secret is in the store")
    #expect(all.range(of: Data("tag-1".utf8)) != nil)
}
