import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Loupe
import LoupeGRPC
import LoupeQuery
import LoupeTrace
@testable import LoupeTestSupport
import Testing

/// A recorded unary call sent again through grpc-swift to Python's grpcio: recorded as a replay of its original,
/// with the recorded message and metadata, the redacted secret left out; streaming calls are refused.
@Suite(.enabled(if: GRPCPeer.available, GRPCPeer.skipReason), .serialized)
struct GRPCReplayTests {
    @Test func unaryCallIsSentAgainAndRecordedAsAReplay() async throws {
        let peer = try await GRPCPeer.start()
        defer { peer.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-grpc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        let inspector = NetworkTraceInspector(store: store)
        let transport = try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: peer.port),
                                                       transportSecurity: .plaintext)
        // grpc-swift 2: one interceptor where the client is made, and the transport wrapped (LoupeGRPC):
        let client = GRPCClient(transport: LoupeGRPCTransport(wrapping: transport),
                                interceptors: [LoupeGRPCInterceptor(recorder: inspector)])
        let ping = TestMessage.ping("again", number: 7)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await client.runConnections() }
            _ = try await client.unary(
                request: ClientRequest(message: ping, metadata: GRPCRecordingTests.metadata),
                descriptor: GRPCRecordingTests.method("Unary", .unary), serializer: RawBytesSerializer(),
                deserializer: RawBytesDeserializer(), options: .defaults) { try $0.message }
            client.beginGracefulShutdown()
        }
        await inspector.flush()
        let original = try #require(try store.exchanges(matching: nil, limit: 10).first)
        #expect(original.requestHeaders.contains { $0.name == "authorization" && $0.value == RedactionPolicy.marker })

        let replayTransport = try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: peer.port),
                                                             transportSecurity: .plaintext)
        let outcome = try await GRPCUnaryReplay.replay(original, transport: replayTransport, observer: inspector)
        #expect(outcome.code == 0)
        #expect(outcome.response == [UInt8](original.stream!.messages.last!.payload))
        await inspector.shutdown()
        let all = try store.exchanges(matching: nil, limit: 10)
        #expect(all.count == 2)
        let replay = try #require(all.first { $0.replayOf == original.id })
        #expect(replay.operation == "loupe.test.Echo/Unary" && replay.outcome == .success)
        #expect(replay.stream?.messages.map(\.payload) == original.stream?.messages.map(\.payload))
        #expect(replay.requestHeaders.contains { $0.name == "x-request-tag" && $0.value == "tag-1" })
        // The redacted secret was not sent: the server echoed an empty authorization back.
        #expect(!replay.requestHeaders.contains { $0.name == "authorization" })
        #expect(replay.responseHeaders.contains { $0.name == "x-echo-authorization" && $0.value.isEmpty })
    }

    @Test func callsThatAreNotUnaryOrNotGRPCAreRefused() throws {
        let start = Date()
        func exchange(_ stream: TraceStream?, operation: String = "loupe.test.Echo/Collect") -> TraceExchange {
            TraceExchange(id: UUID(), operation: operation, method: "POST", url: "http://127.0.0.1:1/" + operation,
                          startedAt: start, endedAt: start, outcome: .success, status: 200, requestHeaders: [],
                          requestBody: nil, responseHeaders: [], responseBody: nil, attempts: [], events: [], stream: stream)
        }
        let message = TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: 1, payload: Data([0x08]))
        func refusal(_ exchange: TraceExchange) -> String? {
            do {
                _ = try GRPCUnaryReplay.call(for: exchange)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(exchange(nil)) == "not a gRPC call")
        #expect(refusal(exchange(TraceStream(kind: .grpc, messages: [message, message], sentCount: 2)))
            == "only unary gRPC calls replay (this one sent 2 and received 0 messages)")
        #expect(refusal(exchange(TraceStream(kind: .grpc, messages: [message], sentCount: 1), operation: "nope"))
            == "the recorded method 'nope' is not package.Service/Method")
        var cut = message
        cut.isTruncated = true
        #expect(refusal(exchange(TraceStream(kind: .grpc, messages: [cut], sentCount: 1)))
            == "the request message was not kept whole when recorded")
        #expect(refusal(exchange(TraceStream(kind: .grpc, messages: [message], sentCount: 1))) == nil)
    }
}
