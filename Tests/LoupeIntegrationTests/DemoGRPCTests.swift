import Foundation
import Loupe
@testable import LoupeDemo
import LoupeFilter
import LoupeProtobuf
import LoupeQuery
import LoupeTrace
import Testing

/// The demo's gRPC service (grpc-swift's HTTP/2 server on 127.0.0.1) through the demo's own gRPC client and Loupe's
/// interceptor, into a real SQLite store: `Reserve` of an even order refused with UNAVAILABLE and answered on
/// grpc-swift's retry, `Watch` streaming its stock levels, every message readable as protobuf.
@Suite(.timeLimit(.minutes(2)))
struct DemoGRPCTests {
    @Test func reserveIsRetriedAfterUnavailableAndWatchStreamsEveryLevel() async throws {
        try await withTemporaryDirectory { folder in
            let store = try SQLiteTraceStore(path: folder.appendingPathComponent("demo.sqlite").path, bounds: nil)
            let inspector = NetworkTraceInspector(store: store)
            let server = try await DemoGRPCServer.start()
            let calls = try DemoGRPCCalls(port: server.port, observer: inspector, timeout: .seconds(60))
            let (odd, even, levels) = await calls.connected { calls in
                (await calls.reserve(order: 1), await calls.reserve(order: 2), await calls.watch(updates: 3))
            }
            await server.stop()
            await inspector.flush()

            #expect(odd.attempts == 1 && odd.code == nil)
            #expect(even.attempts == 2 && even.code == nil, "the retry policy answered the refused attempt")
            #expect(levels == 3)
            let exchanges = try store.exchanges(matching: try TraceFilter.parse("~grpc"), limit: 10)
                .sorted { $0.startedAt < $1.startedAt }
            try #require(exchanges.count == 4)
            #expect(exchanges.map(\.operation) == ["loupe.demo.Warehouse/Reserve", "loupe.demo.Warehouse/Reserve",
                                                   "loupe.demo.Warehouse/Reserve", "loupe.demo.Warehouse/Watch"])
            #expect(exchanges.map { $0.stream?.code } == ["OK", "UNAVAILABLE", "OK", "OK"])
            let refused = try store.exchanges(matching: try TraceFilter.parse("~gs UNAVAILABLE"), limit: 10)
            #expect(refused.map(\.id) == [exchanges[1].id])
            #expect(exchanges[1].stream?.closeReason == "warehouse busy, try again")
            #expect(exchanges[2].attempts.first?.number == 2, "the retry is the call's second attempt")

            // Reserve: the request and the reservation, both protobuf with the order number in them.
            let reserve = try #require(exchanges[2].stream)
            #expect(reserve.messages.map(\.direction) == [.sent, .received])
            let request = try #require(ProtobufWireDecoder.decode(Array(reserve.messages[0].payload)))
            #expect(request.contains(ProtobufField(number: 3, value: .varint(2))))
            let answer = try #require(ProtobufWireDecoder.decode(Array(reserve.messages[1].payload)))
            #expect(answer.contains(ProtobufField(number: 1, value: .varint(2))))
            // Watch: one request, three stock levels numbered 1 to 3.
            let watch = try #require(exchanges[3].stream)
            #expect(watch.messages.map(\.direction) == [.sent, .received, .received, .received])
            let sequences = watch.messages.dropFirst().compactMap { ProtobufWireDecoder.decode(Array($0.payload)) }
                .map { $0.filter { $0.number == 3 } }
            #expect(sequences == (1...3).map { [ProtobufField(number: 3, value: .varint(UInt64($0)))] })
            await inspector.shutdown()
            try store.close()
        }
    }

    /// Refused orders whose retry never comes are forgotten past a bound, oldest first: the service's memory of
    /// them cannot grow for as long as the demo runs.
    @Test func refusedOrdersThatAreNeverRetriedAreForgottenOldestFirst() throws {
        let service = DemoGRPCService()
        func answered(_ order: UInt64) -> Bool {
            (try? service.reserve(DemoGRPCMessage.reserveRequest(item: "x", quantity: 1, order: order))) != nil
        }
        let orders = (1...UInt64(DemoGRPCService.maxWaitingOrders + 1)).map { $0 * 2 }
        #expect(orders.allSatisfy { !answered($0) }, "every even order's first attempt is refused")
        #expect(!answered(orders[0]), "the oldest was forgotten, so its retry is refused again")
        #expect(answered(orders[orders.count - 1]), "the newest retry is answered")
        #expect(answered(7), "an odd order is answered at once")
        #expect(throws: (any Error).self) { try service.reserve([0xFF]) }
    }
}
