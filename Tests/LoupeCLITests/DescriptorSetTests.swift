import ArgumentParser
import Foundation
import Loupe
import LoupeFormats
import LoupeProtobuf
import LoupeTrace
@testable import loupe
import Testing

/// `--descriptor-set FILE` (and `LOUPE_DESCRIPTOR_SET`) on `show` and `export`: a gRPC call's messages by field
/// name, as JSON; files that are not descriptor sets are one line and exit 2.
struct DescriptorSetTests {
    static let shapes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LoupeGRPCTests/Fixtures/shapes.pb").path

    /// `loupe.shapes.Shop/Place`: an Order (`orderId: "A-1"`, `status: GREEN`) sent, a Known (a timestamp) back.
    static func call() -> TraceExchange {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let order = Data([0x0A, 0x03, 0x41, 0x2D, 0x31, 0x70, 0x02])
        let known = Data([0x0A, 0x06, 0x08, 0x80, 0xE2, 0xCF, 0xAA, 0x06])
        let stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: order.count, payload: order),
            TraceMessage(index: 1, direction: .received, at: start, type: "message", size: known.count, payload: known),
        ], sentCount: 1, receivedCount: 1, byteCount: order.count + known.count, closeCode: 0, closedBy: "server")
        return TraceExchange(
            id: UUID(), operation: "loupe.shapes.Shop/Place", method: "POST", url: "http://127.0.0.1:50051/loupe.shapes.Shop/Place",
            startedAt: start, endedAt: start.addingTimeInterval(0.01), outcome: .success, status: 200,
            requestHeaders: [TraceHeader(name: "content-type", value: "application/grpc")], requestBody: nil,
            responseHeaders: [], responseBody: nil, attempts: [], events: [], stream: stream)
    }

    static func load(_ arguments: [String], environment: [String: String] = [:]) throws -> ProtobufDescriptorSet? {
        try DescriptorSetOption.parse(arguments).load(environment: environment)
    }

    /// What the command prints and exits with when loading fails; nil when it loads.
    static func refusal(_ arguments: [String], environment: [String: String] = [:]) -> ErrorReport? {
        do {
            _ = try load(arguments, environment: environment)
            return nil
        } catch {
            return LoupeCommand.report(for: error)
        }
    }

    @Test func showPrintsMessagesByFieldName() throws {
        let set = try #require(try Self.load(["--descriptor-set", Self.shapes]))
        let json = try Formatting.json(ExchangeJSON(Self.call(), messageTypes: set))
        #expect(json.contains(#""orderId" : "A-1""#), "\(json)")
        #expect(json.contains(#""status" : "GREEN""#))
        #expect(json.contains(#""at" : "2023-11-14T22:13:20Z""#))
        // The wire-format text stays beside it.
        #expect(json.contains(#""protobuf" : "1: \"A-1\"\n14: 2\n""#))
        #expect(!(try Formatting.json(ExchangeJSON(Self.call()))).contains("orderId"))

        let text = ExchangeText.render(Self.call(), messageTypes: set)
        #expect(text.contains(#"{"orderId":"A-1","status":"GREEN"}"#), "\(text)")
        #expect(text.contains(#"{"at":"2023-11-14T22:13:20Z"}"#))
        #expect(!ExchangeText.render(Self.call()).contains("orderId"))
    }

    @Test func theEnvironmentNamesTheSetWhenTheFlagDoesNot() throws {
        #expect(try Self.load([], environment: [:]) == nil)
        #expect(try Self.load([], environment: ["LOUPE_DESCRIPTOR_SET": Self.shapes])?.method("loupe.shapes.Shop/Place") != nil)
        #expect(try Self.load([], environment: ["LOUPE_DESCRIPTOR_SET": ""]) == nil)
    }

    @Test func filesThatAreNotDescriptorSetsAreOneLineAndExit2() throws {
        let folder = NSTemporaryDirectory() + "loupe-descriptor-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("syntax = \"proto3\";\n".utf8).write(to: URL(fileURLWithPath: folder + "/shop.proto"))
        #expect(Self.refusal(["--descriptor-set", folder + "/shop.proto"]) == (ErrorReport.failure(
            line: "loupe: --descriptor-set \(folder)/shop.proto: not a FileDescriptorSet (not protobuf at all)", code: 2)))
        #expect(Self.refusal(["--descriptor-set", folder + "/missing.pb"]) == (ErrorReport.failure(
            line: "loupe: --descriptor-set \(folder)/missing.pb: no such file", code: 2)))
        #expect(Self.refusal(["--descriptor-set", folder]) == (ErrorReport.failure(
            line: "loupe: --descriptor-set \(folder): is a directory, not a regular file", code: 2)))
        #expect(Self.refusal([], environment: ["LOUPE_DESCRIPTOR_SET": folder + "/shop.proto"]) == (ErrorReport.failure(
            line: "loupe: $LOUPE_DESCRIPTOR_SET \(folder)/shop.proto: not a FileDescriptorSet (not protobuf at all)", code: 2)))
        // A set cut short.
        let cut = try Data(contentsOf: URL(fileURLWithPath: Self.shapes)).dropLast(5)
        try cut.write(to: URL(fileURLWithPath: folder + "/cut.pb"))
        guard case .failure(let line?, 2)? = Self.refusal(["--descriptor-set", folder + "/cut.pb"]) else {
            Issue.record("a cut set was read")
            return
        }
        #expect(line.hasPrefix("loupe: --descriptor-set \(folder)/cut.pb: "))
    }

    @Test func exportWritesEachMessagesJSONBesideItsBytes() async throws {
        let folder = NSTemporaryDirectory() + "loupe-descriptor-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteTraceStore(path: folder + "/traces.sqlite")
        try store.write([Self.call()])
        #expect(await HARStreamCommandTests.run(try ExportCommand.parse(
            [folder + "/traces.sqlite", "--har", folder + "/out.har", "--descriptor-set", Self.shapes])) == nil)
        let har = try Data(contentsOf: URL(fileURLWithPath: folder + "/out.har"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let log = try #require(parsed["log"] as? [String: Any])
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        let stream = try #require((entry["_loupe"] as? [String: Any])?["stream"] as? [String: Any])
        let messages = try #require(stream["messages"] as? [[String: Any]])
        #expect((messages[0]["json"] as? [String: Any])?["orderId"] as? String == "A-1")
        #expect((messages[1]["json"] as? [String: Any])?["at"] as? String == "2023-11-14T22:13:20Z")
        // It imports back as it was (the JSON is a view, not the message).
        let back = try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: folder + "/out.har"))
        #expect(back.first?.stream?.messages.map(\.payload) == Self.call().stream?.messages.map(\.payload))
        // Without the set, no JSON.
        #expect(await HARStreamCommandTests.run(try ExportCommand.parse([folder + "/traces.sqlite", "--har", folder + "/plain.har"])) == nil)
        #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/plain.har")), as: UTF8.self).contains("orderId"))
    }
}
