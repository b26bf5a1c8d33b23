import Foundation
@testable import LoupeTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A peer server from `.ci/` run with the CI's Python (`LOUPE_CI_PYTHON`, the venv `.ci/run` makes from
/// `.ci/requirements.txt`): the `websockets` and `sse-starlette` servers streams are tested against. It binds a free
/// loopback port and prints it on its first line; ``stop()`` (or the last reference going) kills it.
///
/// Nothing here blocks a thread of the cooperative pool (2 threads on a 2-core machine): the port is read on a thread
/// of its own, and stopping sends SIGKILL without waiting. When these suites blocked the pool (a blocking read of the
/// port, `waitUntilExit`, uvicorn waiting on SIGTERM for open connections) they hung under `swift test`.
final class PythonPeer {
    /// Why tests against peers are skipped when no Python is set (CI always sets it).
    static let skipReason: Comment = "LOUPE_CI_PYTHON is unset: run `python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt` and export LOUPE_CI_PYTHON=$PWD/.ci/venv/bin/python"
    static var available: Bool { ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] != nil }

    let port: Int
    private let process: Process
    /// The peer's standard error: a file, not a pipe, so a chatty peer never blocks on a full pipe nor holds the test
    /// runner's own output open after the run.
    let log: URL

    private init(port: Int, process: Process, log: URL) {
        self.port = port
        self.process = process
        self.log = log
    }

    /// Starts `.ci/<script>` and waits for its port.
    static func start(_ script: String) async throws -> PythonPeer {
        guard let python = ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] else { throw PeerError("LOUPE_CI_PYTHON is unset") }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-peer-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent(".ci/\(script)").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line is the port; a peer that dies first gives an empty read.
        let reader = output.fileHandleForReading
        let line = await PeerOutput.firstLine(reader)
        guard let port = Int(line) else {
            kill(process.processIdentifier, SIGKILL)
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw PeerError("\(script) did not print its port: \(errors.prefix(600))")
        }
        return PythonPeer(port: port, process: process, log: log)
    }

    /// Kills the peer (SIGKILL: uvicorn, on SIGTERM, waits for open connections to close).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: log)
    }

    struct PeerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
