import Foundation
import Synchronization

/// A run of bytes in a multipart body.
enum MultipartSegment: Sendable {
    case bytes(Data)
    case file(URL, size: Int64)

    var length: Int64 {
        switch self {
        case .bytes(let data): Int64(data.count)
        case .file(_, let size): size
        }
    }
}

/// Produces a multipart body chunk by chunk, only when the consumer asks for the next one: at most one chunk of a
/// file is in memory at a time, whatever the file's size.
final class MultipartBodyReader: Sendable {
    private struct State {
        var index = 0
        var offset: Int64 = 0
        var handle: FileHandle?
    }

    private let segments: [MultipartSegment]
    private let chunkSize: Int
    // The stream calls `next` once at a time, so the lock is never contended; it makes the reader Sendable.
    private let state = Mutex(State())

    init(segments: [MultipartSegment], chunkSize: Int) {
        self.segments = segments
        self.chunkSize = chunkSize
    }

    /// The next chunk, or nil at the end.
    func next() throws -> Data? {
        try state.withLock { state in
            while state.index < segments.count {
                let segment = segments[state.index]
                let remaining = segment.length - state.offset
                if remaining == 0 {
                    if case .file(let url, let size) = segment { try Self.close(&state, url: url, size: size) }
                    state.index += 1
                    state.offset = 0
                    continue
                }
                let count = Int(min(Int64(chunkSize), remaining))
                let chunk: Data
                switch segment {
                case .bytes(let data):
                    let start = data.startIndex + Int(state.offset)
                    chunk = data.subdata(in: start..<start + count)
                case .file(let url, let size):
                    chunk = try Self.read(count, from: url, size: size, state: &state)
                }
                state.offset += Int64(chunk.count)
                return chunk
            }
            return nil
        }
    }

    private static func read(_ count: Int, from url: URL, size: Int64, state: inout State) throws -> Data {
        do {
            if state.handle == nil { state.handle = try FileHandle(forReadingFrom: url) }
            let chunk = try state.handle?.read(upToCount: count) ?? Data()
            // The length was promised in Content-Length: a file that shrank since cannot keep that promise.
            if chunk.isEmpty { throw MultipartError.fileChanged(url, expected: size, actual: state.offset) }
            return chunk
        } catch let error as MultipartError {
            throw error
        } catch {
            throw MultipartError.unreadable(url, reason: String(describing: error))
        }
    }

    /// Closes the file, failing when it grew since its size was taken.
    private static func close(_ state: inout State, url: URL, size: Int64) throws {
        defer {
            try? state.handle?.close()
            state.handle = nil
        }
        if let extra = try? state.handle?.read(upToCount: 1), !extra.isEmpty {
            throw MultipartError.fileChanged(url, expected: size, actual: size + 1)
        }
    }
}
