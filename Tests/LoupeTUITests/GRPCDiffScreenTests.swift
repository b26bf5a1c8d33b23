import Foundation
import Loupe
import LoupeProtobuf
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Testing

/// `d` on a gRPC replay: the recorded and the replayed response messages compared field by field, by name with a
/// descriptor set, else by field number as `protoc --decode_raw` reads them.
struct GRPCDiffScreenTests {
    /// `loupe.shapes.Shop/Place` answering a Known whose timestamp is `seconds` (field 1 of field 1, a varint).
    static func call(_ number: Int, seconds: [UInt8], replayOf: UUID? = nil) -> TraceExchange {
        let start = Fixture.epoch.addingTimeInterval(Double(number))
        let order = Data([0x0A, 0x03, 0x41, 0x2D, 0x31, 0x70, 0x02])
        let known = Data([0x0A, UInt8(seconds.count + 1), 0x08] + seconds)
        let stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: order.count, payload: order),
            TraceMessage(index: 1, direction: .received, at: start, type: "message", size: known.count, payload: known),
        ], sentCount: 1, receivedCount: 1, byteCount: order.count + known.count, closeCode: 0, closedBy: "server")
        return TraceExchange(
            id: Fixture.id(number), operation: "loupe.shapes.Shop/Place", method: "POST",
            url: "http://127.0.0.1:50051/loupe.shapes.Shop/Place", startedAt: start, endedAt: start.addingTimeInterval(0.01),
            outcome: .success, status: 200, requestHeaders: [TraceHeader(name: "content-type", value: "application/grpc")],
            requestBody: nil, responseHeaders: [], responseBody: nil, attempts: [], events: [], replayOf: replayOf,
            stream: stream)
    }

    /// 1,700,000,000 s and 1,700,000,090 s as varints.
    static let recorded = call(1, seconds: [0x80, 0xE2, 0xCF, 0xAA, 0x06])
    static let replayed = call(2, seconds: [0xDA, 0xE2, 0xCF, 0xAA, 0x06], replayOf: Fixture.id(1))

    static func app(messageTypes: ProtobufDescriptorSet?) throws -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: try Fixture.store([Self.recorded, Self.replayed]), storeName: "/tmp/traces.sqlite", replayer: nil,
                         timeZone: .gmt, keymap: .standard, history: InMemoryPromptHistory(),
                         size: Size(width: 80, height: 24), now: { Fixture.clock.now }, messageTypes: messageTypes)
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    @Test func dComparesTheResponseMessagesByFieldNumber() throws {
        let (app, screen) = try Self.app(messageTypes: nil)
        screen.press("G", "d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-grpc-fields")
    }

    @Test func dComparesTheResponseMessagesByFieldNameWithADescriptorSet() throws {
        let shapes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LoupeGRPCTests/Fixtures/shapes.pb")
        let (app, screen) = try Self.app(messageTypes: try ProtobufDescriptorSet(bytes: Data(contentsOf: shapes)))
        screen.press("G", "d")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "diff-grpc-names")
    }
}
