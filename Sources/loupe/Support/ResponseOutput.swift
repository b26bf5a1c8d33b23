import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import LoupeFormats
import Synchronization

/// `loupe send`'s standard output as a ``ResponseBodySink``: the head (status line and header fields, control
/// characters made visible) once the response is accepted, then the body chunk by chunk as it arrives.
///
/// A pipe or file gets the body's exact bytes; a terminal gets it through ``TerminalText/block(_:)`` so a hostile
/// body cannot drive the screen (a UTF-8 character split between chunks is held back until it is whole). Output
/// cannot be taken back, so the sink never restarts: a retry after its first byte is refused by the client.
final class StandardOutputSink: ResponseBodySink {
    private let handle: FileHandle
    private let terminal: Bool
    private let printsHead: Bool
    private struct State {
        /// The end of a chunk that stopped inside a UTF-8 character (terminal only).
        var pending = Data()
        var lastByte: UInt8?
        /// Why standard output stopped taking bytes (`cannot write to standard output: Broken pipe`), once it did.
        var failure: String?
    }

    private let state = Mutex(State())

    /// Writes to `handle` (standard output), as text for a terminal when `terminal`; the head only when `printsHead`.
    init(handle: FileHandle = .standardOutput, terminal: Bool = isatty(STDOUT_FILENO) == 1, printsHead: Bool = true) {
        self.handle = handle
        self.terminal = terminal
        self.printsHead = printsHead
    }

    var canRestart: Bool { false }

    /// The command's one line when standard output refused a write (a closed pipe, a full disk): the send failed
    /// there, not on the network.
    var writeFailure: String? { state.withLock { $0.failure } }

    /// Writes `data`, or throws (and remembers) why standard output would not take it, in words.
    private func put(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            let failure = "cannot write to standard output: \(StandardStreams.reason(error))"
            state.withLock { $0.failure = failure }
            throw OutputFailure(description: failure)
        }
    }

    private struct OutputFailure: Error, CustomStringConvertible {
        var description: String
    }

    func begin(_ head: HTTPResponse, httpVersion: String?) throws {
        guard printsHead else { return }
        try put(Data(Self.headText(head, httpVersion: httpVersion).utf8))
    }

    func write(_ chunk: Data) throws {
        guard let last = chunk.last else { return }
        guard terminal else {
            try put(chunk)
            state.withLock { $0.lastByte = last }
            return
        }
        let text: String = state.withLock { state in
            state.lastByte = last
            var bytes = state.pending + chunk
            let cut = UTF8Boundary.completeLength(of: bytes)
            state.pending = bytes.suffix(from: bytes.startIndex + cut)
            bytes = bytes.prefix(cut)
            return TerminalText.block(String(decoding: bytes, as: UTF8.self))
        }
        try put(Data(text.utf8))
    }

    func finish(byteCount: Int64) throws {
        let (pending, last) = state.withLock { state in
            defer { state.pending = Data() }
            return (state.pending, state.lastByte)
        }
        if !pending.isEmpty { try put(Data(TerminalText.block(String(decoding: pending, as: UTF8.self)).utf8)) }
        // A body without a final newline would leave the shell prompt on its last line.
        if let last, last != UInt8(ascii: "\n") { try put(Data("\n".utf8)) }
    }

    /// The status line and the header fields, control characters made visible, then a blank line.
    static func headText(_ head: HTTPResponse, httpVersion: String?) -> String {
        var text = "\(httpVersion ?? "HTTP/1.1") \(head.status.code) \(TerminalText.line(head.status.reasonPhrase))\n"
        for field in head.headerFields { text += TerminalText.line("\(field.name.rawName): \(field.value)") + "\n" }
        return text + "\n"
    }
}

/// Where UTF-8 text may be cut without splitting a character.
enum UTF8Boundary {
    /// The length of the longest prefix of `bytes` that does not end inside a multi-byte character. Invalid bytes
    /// count as complete (they decode to U+FFFD either way), so at most 3 bytes are ever held back.
    static func completeLength(of bytes: Data) -> Int {
        let end = bytes.endIndex
        var index = end
        // Back over up to three continuation bytes to the lead byte of the last character.
        while index > bytes.startIndex, end - index < 3, bytes[index - 1] & 0xC0 == 0x80 { index -= 1 }
        guard index > bytes.startIndex else { return bytes.count }
        let lead = bytes[index - 1]
        let needed = lead >= 0xF0 && lead < 0xF8 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        let have = end - (index - 1)
        return have < needed ? (index - 1) - bytes.startIndex : bytes.count
    }
}
