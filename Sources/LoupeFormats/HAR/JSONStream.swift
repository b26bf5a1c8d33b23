import Foundation
import LoupeTrace

/// JSON text read forward from a file or from bytes, holding only a window of it: the bytes not yet read from the
/// last chunk, plus, while a value is being captured, that value. Memory is therefore a chunk plus the largest
/// captured value, whatever the size of the text (``peakBufferSize`` says how much it came to).
///
/// Scanning (``JSONStream+Scanning.swift``) follows the rules of Foundation's `JSONDecoder` exactly, so the text
/// it accepts is the text the decoder accepts; errors are ``HARImportError``s naming the byte, line and column.
struct JSONStream {
    /// Where the text comes from.
    enum Source {
        case file(FileHandle)
        case bytes(Data)
    }

    private let source: Source
    /// Bytes `windowStart ..< windowStart + window.count` of the text.
    private(set) var window: [UInt8] = []
    private var windowStart = 0
    /// The next byte to read, as an index into `window`.
    var index = 0
    private var isExhausted = false
    /// The offset of the value being captured: bytes from there on stay in the window.
    private var captureStart: Int?
    private let chunkSize: Int
    /// The most bytes the window held at once.
    private(set) var peakBufferSize = 0
    /// Containers open around the next byte (Foundation's decoder refuses more than ``maxDepth``).
    var depth = 0

    /// As deep as Foundation's decoder nests arrays and objects.
    static let maxDepth = 512

    init(_ source: Source, chunkSize: Int = 1 << 20) {
        self.source = source
        self.chunkSize = max(16, chunkSize)
    }

    /// The offset of the next byte from the start of the text.
    var offset: Int { windowStart + index }

    // MARK: Reading

    /// Makes at least `count` bytes from ``index`` available if the text has them; returns how many are.
    @discardableResult
    mutating func ensure(_ count: Int) throws(HARImportError) -> Int {
        while window.count - index < count, !isExhausted { try refill() }
        return window.count - index
    }

    /// The next byte without reading it; `nil` at the end.
    mutating func peek() throws(HARImportError) -> UInt8? {
        if index == window.count { try ensure(1) }
        return index < window.count ? window[index] : nil
    }

    mutating func advance(by count: Int = 1) {
        index += count
    }

    /// Drops what is read and not captured, then appends the next chunk.
    private mutating func refill() throws(HARImportError) {
        let keep = min(captureStart ?? offset, offset) - windowStart
        if keep > 0 {
            window.removeSubrange(0..<keep)
            windowStart += keep
            index -= keep
        }
        let chunk: Data
        switch source {
        case .bytes(let data):
            let start = data.startIndex + windowStart + window.count
            chunk = data[start..<min(data.endIndex, start + chunkSize)]
        case .file(let handle):
            do {
                chunk = try handle.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw HARImportError(code: .unreadable, message: "cannot read the file: \(HARImporter.reason(error))")
            }
        }
        if chunk.isEmpty { isExhausted = true }
        window.append(contentsOf: chunk)
        peakBufferSize = max(peakBufferSize, window.count)
    }

    // MARK: Capturing

    /// Keeps every byte from the next one until ``endCapture()``.
    mutating func beginCapture() {
        captureStart = offset
    }

    /// The bytes read since ``beginCapture()``.
    mutating func endCapture() -> Data {
        guard let start = captureStart else { return Data() }
        captureStart = nil
        return Data(window[(start - windowStart)..<index])
    }

    // MARK: Errors

    /// The text ends inside a value (called once ``ensure(_:)`` found the end, so the window reaches it).
    func truncated() -> HARImportError {
        HARImportError(code: .truncated, message:
            "the file is truncated: the JSON ends at byte \(windowStart + window.count) before it is complete")
    }

    /// A syntax error at the next byte.
    func malformed(_ problem: String) -> HARImportError {
        let (line, column) = lineAndColumn(of: offset)
        return HARImportError(
            code: .malformedJSON,
            message: "not valid JSON at byte \(offset) (line \(line), column \(column)): \(problem)", byteOffset: offset)
    }

    /// 1-based line and column (in bytes) of `target`. Lines are only counted when an error needs them, by reading
    /// the text again from its start: scanning never pays for them.
    private func lineAndColumn(of target: Int) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        func count(_ bytes: some Collection<UInt8>, from base: Int) {
            for (position, byte) in zip(base..., bytes) where byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = position + 1
            }
        }
        switch source {
        case .bytes(let data):
            count(data.prefix(target), from: 0)
        case .file(let handle):
            guard let start = try? handle.offset(), (try? handle.seek(toOffset: 0)) != nil else { break }
            var read = 0
            while read < target, let chunk = try? handle.read(upToCount: min(chunkSize, target - read)), !chunk.isEmpty {
                count(chunk, from: read)
                read += chunk.count
            }
            try? handle.seek(toOffset: start)
        }
        return (line, target - lineStart + 1)
    }
}
