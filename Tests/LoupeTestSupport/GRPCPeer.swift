import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `.ci/grpc-server.py` (Python's grpcio serving Fixtures/loupe_test.proto) run with the CI's Python: it prints its
/// port on its first line. The port is read on a thread of its own, never one of the cooperative pool's.
final class GRPCPeer {
    static let skipReason: Comment = "LOUPE_CI_PYTHON is unset: run `python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt` and export LOUPE_CI_PYTHON=$PWD/.ci/venv/bin/python"
    static var available: Bool { ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"] != nil }
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        (self.port, self.process) = (port, process)
    }

    static func start() async throws -> GRPCPeer {
        let python = try #require(ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent(".ci/grpc-server.py").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let line = await PeerOutput.firstLine(reader)
        guard let port = Int(line) else {
            kill(process.processIdentifier, SIGKILL)
            throw PeerError(description: "grpc-server.py did not print its port")
        }
        return GRPCPeer(port: port, process: process)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }

    struct PeerError: Error, CustomStringConvertible {
        var description: String
    }
}
