import ArgumentParser
import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import loupe
@testable import LoupeTestSupport
import Testing

/// `loupe replay` of a recorded unary gRPC call against Python's grpcio (.ci/grpc-server.py). Its `Flaky` method
/// answers UNAVAILABLE the first time it sees a text and OK after: the server's own count of the calls it got, so a
/// refused confirmation that sent nothing shows as the next replay's UNAVAILABLE.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] != nil, "LOUPE_CI_PYTHON is unset"), .serialized)
struct GRPCReplayCommandTests {
    /// A recorded `Flaky` call of `text`: its Ping sent, authorization redacted.
    static func recorded(port: Int, text: String) -> TraceExchange {
        let start = Date()
        let ping = Data([0x0A, UInt8(text.utf8.count)] + Array(text.utf8))
        let stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: start, type: "message", size: ping.count, payload: ping),
        ], sentCount: 1, receivedCount: 0, byteCount: ping.count, closeCode: 0, closedBy: "server")
        return TraceExchange(
            id: UUID(), operation: "loupe.test.Echo/Flaky", method: "POST",
            url: "http://127.0.0.1:\(port)/loupe.test.Echo/Flaky", startedAt: start, endedAt: start, outcome: .success,
            status: 200, requestHeaders: [
                TraceHeader(name: "content-type", value: "application/grpc"), TraceHeader(name: "te", value: "trailers"),
                TraceHeader(name: "authorization", value: RedactionPolicy.marker),
                TraceHeader(name: "x-request-tag", value: "tag-1"),
            ], requestBody: nil, responseHeaders: [], responseBody: nil, attempts: [], events: [], stream: stream)
    }

    @Test func aRefusedConfirmationSendsNothingAndAConfirmedOneIsRecordedAsAReplay() async throws {
        let peer = try await GRPCPeer.start()
        defer { peer.stop() }
        let port = peer.port
        let folder = NSTemporaryDirectory() + "loupe-grpc-replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/traces.sqlite"
        let original = Self.recorded(port: port, text: "once-\(UUID().uuidString.prefix(8))")
        try SQLiteTraceStore(path: path).write([original])
        let id = original.id.uuidString

        // No terminal and no --yes: refused before anything is sent.
        let refused = await HARStreamCommandTests.run(try ReplayCommand.parse([path, "--id", id]))
        guard case .failure(let line?, 2)? = refused else {
            Issue.record("not refused: \(String(describing: refused))")
            return
        }
        #expect(line.contains("--yes"), "\(line)")
        // The first call the server sees of this text: UNAVAILABLE (exit 1), so the refusal sent nothing.
        #expect(await HARStreamCommandTests.run(try ReplayCommand.parse([path, "--id", id, "--yes"]))
            == .failure(line: nil, code: 1))
        // The second: OK.
        #expect(await HARStreamCommandTests.run(try ReplayCommand.parse([path, "--id", id, "--yes"])) == nil)
        let replays = try SQLiteTraceStore(path: path, readOnly: true).exchanges(matching: nil, limit: 10)
            .filter { $0.replayOf == original.id }.sorted { $0.startedAt < $1.startedAt }
        #expect(replays.map { $0.stream?.code } == ["UNAVAILABLE", "OK"])
        #expect(replays.allSatisfy { $0.operation == "loupe.test.Echo/Flaky" })
        #expect(replays.first?.stream?.messages.first?.payload == original.stream?.messages.first?.payload)
        #expect(replays.first?.requestHeaders.contains { $0.name == "x-request-tag" && $0.value == "tag-1" } == true)
        #expect(replays.first?.requestHeaders.contains { $0.name == "authorization" } == false)
        // HTTP's options are refused for a gRPC replay, before anything is sent.
        guard case .failure(let refusal?, 2)? = await HARStreamCommandTests.run(
            try ReplayCommand.parse([path, "--id", id, "--yes", "--raw"])) else {
            Issue.record("--raw was not refused")
            return
        }
        #expect(refusal.contains("a gRPC replay takes"))
    }

    /// `loupe replay --diff` (the binary) of a recorded `Unary` call whose recorded answer was `Pong{text: "stale",
    /// count: 42}`: the Python server answers `hello`, so the response message differs in field 1 and nowhere else,
    /// and the exit status is 1; `--ignore` on that field makes it 0.
    @Test func diffComparesTheResponseMessageFieldByField() async throws {
        let peer = try await GRPCPeer.start()
        defer { peer.stop() }
        let folder = NSTemporaryDirectory() + "loupe-grpc-diff-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/traces.sqlite"
        var original = Self.recorded(port: peer.port, text: "hello")
        original.operation = "loupe.test.Echo/Unary"
        original.url = "http://127.0.0.1:\(peer.port)/loupe.test.Echo/Unary"
        let ping = Data([0x0A, 0x05] + Array("hello".utf8) + [0x10, 0x2A])
        let pong = Data([0x0A, 0x05] + Array("stale".utf8) + [0x10, 0x2A])
        original.stream = TraceStream(kind: .grpc, messages: [
            TraceMessage(index: 0, direction: .sent, at: original.startedAt, type: "message", size: ping.count, payload: ping),
            TraceMessage(index: 1, direction: .received, at: original.startedAt, type: "message", size: pong.count, payload: pong),
        ], sentCount: 1, receivedCount: 1, byteCount: ping.count + pong.count, closeCode: 0, closedBy: "server")
        // What grpcio answers besides the message, as recorded, so only the message differs.
        original.responseHeaders = [
            TraceHeader(name: "content-type", value: "application/grpc"),
            TraceHeader(name: "grpc-accept-encoding", value: "identity, deflate, gzip"),
            TraceHeader(name: "x-echo-authorization", value: ""), TraceHeader(name: "grpc-status", value: "0"),
        ]
        try SQLiteTraceStore(path: path).write([original])
        let id = original.id.uuidString

        let differs = try Self.loupe(["replay", path, "--id", id, "--yes", "--diff"])
        #expect(differs.status == 1, "\(differs.output)")
        #expect(differs.output.contains(#"message[0] $['1']: "stale" → "hello""#), "\(differs.output)")
        #expect(!differs.output.contains("$['2']"), "\(differs.output)")
        #expect(differs.output.contains("Diff: the replay differs from the recording"), "\(differs.output)")

        let same = await HARStreamCommandTests.run(
            try ReplayCommand.parse([path, "--id", id, "--yes", "--diff", "--ignore", "$['1']"]))
        #expect(same == nil, "\(String(describing: same))")
    }

    /// Runs the built `loupe` binary; its standard output and exit status.
    static func loupe(_ arguments: [String]) throws -> (output: String, status: Int32) {
        let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/loupe")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }
}

extension ReplayCommand: AsyncParsableCommandRunnable {
    func runCommand() async throws { try await run() }
}
