import Foundation

/// What a Python peer from `.ci/` prints when it is ready: its first line (its port), read on a thread of its own so
/// a peer that is slow to start never holds one of the cooperative pool's few threads. A peer that dies before
/// printing gives what it printed so far, usually "".
enum PeerOutput {
    static func firstLine(_ reader: FileHandle) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                var line = Data()
                while let byte = try? reader.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
    }
}
