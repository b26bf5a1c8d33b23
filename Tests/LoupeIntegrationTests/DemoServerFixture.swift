import Foundation
import LoupeDemo

/// Runs `body` with the flaky demo API listening on an ephemeral loopback port, stopping it afterwards.
func withDemoServer<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
    let server = try await FlakyAPI.start(port: 0)
    return try await withStopping(server.stop) { try await body(server.baseURL) }
}

/// A fresh temporary folder, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}
