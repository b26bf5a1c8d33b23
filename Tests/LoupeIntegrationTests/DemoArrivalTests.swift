import AsyncHTTPClient
import Foundation
import LoupeDemo
import NIOCore
import NIOHTTP1
import Testing

/// `FlakyAPI.RunningServer.arrival(of:)`: what tests await instead of polling the access log's file.
@Suite(.timeLimit(.minutes(2))) struct DemoArrivalTests {
    @Test func anArrivalIsHeardWhenItComesOnceItHasComeAndACancelledWaitEnds() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-arrival-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await FlakyAPI.start(port: 0, accessLog: folder.appendingPathComponent("access.log").path)
        // Waiting before the request is sent: heard when it reaches the server.
        async let heard: Void = server.arrival(of: "GET /users")
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: server.baseURL.appendingPathComponent("users").absoluteString), timeout: .seconds(30))
        #expect(response.status == .ok)
        await heard
        // After it came: at once.
        await server.arrival(of: "GET /users")
        // A line that never comes: the wait ends when its task is cancelled.
        let never = Task { await server.arrival(of: "GET /never") }
        never.cancel()
        await never.value
        await server.stop()
    }
}
