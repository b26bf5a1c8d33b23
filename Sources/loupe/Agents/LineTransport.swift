import Foundation
import LoupeTrace
import Synchronization

/// MCP's stdio transport, bounded: one JSON-RPC message per line on stdin, answers on stdout.
///
/// A line of any length kept in memory and rescanned on every read would make a 100 MB line cost 100 MB and
/// quadratic time. This one reads with blocking reads on a thread of its own, keeps at most
/// ``AgentLimits/requestBytes`` of a line, skips the rest of a longer one to its end, and answers it with a
/// JSON-RPC error (-32600) itself, so the server never sees it. Writes from both sides go out whole, one at a time.
final class LineTransport: Sendable {
    private let input: Int32
    private let writer: LineWriter
    private let limit: Int

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, limit: Int = AgentLimits.requestBytes) {
        self.input = input
        writer = LineWriter(descriptor: output)
        self.limit = limit
    }

    /// The input's lines, read once on a thread of its own; the sequence ends with the input. The thread stops
    /// reading while ``AgentLimits/queuedLines`` lines wait to be taken, so a client that sends faster than the
    /// server answers fills its own pipe, not the server's memory.
    func lines() -> Lines {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        let (input, limit, writer) = (input, limit, writer)
        let credit = DispatchSemaphore(value: AgentLimits.queuedLines)
        Thread.detachNewThread {
            var reader = LineReader(limit: limit)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for event in reader.feed(buffer[..<count]) {
                    switch event {
                    case .line(let line):
                        credit.wait()
                        continuation.yield(line)
                    case .tooLong(let size):
                        writer.send(Data(LineTransport.tooLongError(size: size, limit: limit).utf8))
                    }
                }
            }
            continuation.finish()
        }
        return Lines(stream: stream, credit: credit)
    }

    /// The lines as they are taken, each handing its place in the queue back to the reading thread.
    struct Lines: AsyncSequence, Sendable {
        let stream: AsyncStream<Data>
        let credit: DispatchSemaphore

        func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), credit: credit) }

        struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Data>.Iterator
            let credit: DispatchSemaphore

            mutating func next() async -> Data? {
                let line = await base.next()
                if line != nil { credit.signal() }
                return line
            }
        }
    }

    /// Writes one message and its newline.
    func send(_ line: String) { writer.send(Data(line.utf8)) }

    /// The JSON-RPC error for a skipped line: its id is unknown (never read), so null, as JSON-RPC says.
    static func tooLongError(size: Int, limit: Int) -> String {
        MCPSession.error(id: .null, .invalidRequest("request of \(size) bytes refused: a request is at most \(limit) bytes"))
    }
}

/// Splits input into lines of at most `limit` bytes (without the newline); a longer line is reported by its size
/// and dropped, its bytes never kept beyond `limit`.
struct LineReader {
    enum Event: Equatable {
        case line(Data)
        case tooLong(size: Int)
    }

    let limit: Int
    private var pending = Data()
    /// The size so far of a line being skipped, nil when not skipping.
    private var skipping: Int?

    init(limit: Int) { self.limit = limit }

    mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            let part = rest[..<newline]
            if let skipped = skipping {
                events.append(.tooLong(size: skipped + part.count))
                skipping = nil
            } else if pending.count + part.count > limit {
                events.append(.tooLong(size: pending.count + part.count))
            } else {
                pending.append(contentsOf: part)
                if !pending.allSatisfy({ $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: " ") }) { events.append(.line(pending)) }
            }
            pending = Data()
            rest = rest[rest.index(after: newline)...]
        }
        if let skipped = skipping {
            skipping = skipped + rest.count
        } else if pending.count + rest.count > limit {
            skipping = pending.count + rest.count
            pending = Data()
        } else {
            pending.append(contentsOf: rest)
        }
        return events
    }
}

/// Writes whole lines to a descriptor, one writer at a time.
final class LineWriter: Sendable {
    private let descriptor: Mutex<Int32>

    init(descriptor: Int32) { self.descriptor = Mutex(descriptor) }

    func send(_ data: Data) {
        descriptor.withLock { descriptor in
            var line = data
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { raw in
                // Never empty: the newline is in it.
                guard let start = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, start + offset, raw.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}
