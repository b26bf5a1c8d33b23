import Foundation
import Loupe
import LoupeTrace
import LoupeFormats
import Testing

/// The real binary with its standard streams pointing where writes fail: one `loupe:` line and exit 2, never a trap.
@Suite("Standard streams that cannot be written")
struct StandardStreamsIntegrationTests {
    /// Runs `loupe arguments` with standard output on `/dev/full`; returns the exit status and what stderr said.
    static func runIntoFullDisk(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = try #require(CrossProcessTests.loupeBinary, "build the loupe executable first (swift build)")
        process.arguments = arguments
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: said, as: UTF8.self))
    }

    @Test("export, list, stats and curl into a full disk fail with one line and exit 2", arguments: [
        ["export", "STORE", "--har", "-"], ["list", "STORE"], ["stats", "STORE"], ["curl", "STORE", "ID"],
    ])
    func fullDisk(arguments: [String]) throws {
        try withTemporaryFolder { folder in try Self.fullDisk(arguments, in: folder) }
    }

    static func fullDisk(_ arguments: [String], in folder: URL) throws {
        let path = folder.appendingPathComponent("traces.sqlite").path
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let exchanges = (0..<300).map { index in
            TraceExchange(
                id: UUID(), operation: "GET /items", method: "GET", url: "https://api.example.test/items/\(index)",
                startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), outcome: .success, status: 200)
        }
        try store.write(exchanges)
        try store.close()
        let resolved = arguments.map { $0 == "STORE" ? path : $0 == "ID" ? exchanges[0].id.uuidString : $0 }
        let (status, stderr) = try Self.runIntoFullDisk(resolved)
        #expect(status == 2, "\(resolved): \(stderr)")
        #expect(stderr == "loupe: cannot write to standard output: No space left on device\n", "\(resolved)")
    }
}
