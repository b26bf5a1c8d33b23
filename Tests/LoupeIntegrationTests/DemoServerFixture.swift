import Foundation
import LoupeDemo

/// Runs `body` with the flaky demo API listening on an ephemeral loopback port, stopping it afterwards.
func withDemoServer<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
    let server = try await FlakyAPI.start(port: 0)
    do {
        let result = try await body(server.baseURL)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A fresh temporary folder, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}
