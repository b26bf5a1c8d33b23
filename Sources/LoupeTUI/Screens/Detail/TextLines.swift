import Foundation
import LoupeTrace

/// Text bytes as lines: split at line feeds (a CRLF's CR dropped), tabs expanded to four spaces, invalid UTF-8 as
/// `�`, and any other control character made visible by `TerminalText`.
///
/// The lines are deferred (``StyledLine``): this finds where they are, and each is decoded when it is read.
enum TextLines {
    /// The lines of the first `length` bytes of `data` (all of them by default).
    static func lines(_ data: Data, length: Int? = nil, indent: String, style: Style = .normal) -> [StyledLine] {
        let source = TextLineSource(data: data, indent: indent, style: style)
        return data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = min(length ?? bytes.count, bytes.count)
            var lines: [StyledLine] = []
            var start = 0
            while start < count || lines.isEmpty {
                var end = start
                var tabs = false
                while end < count, bytes[end] != 0x0A {
                    tabs = tabs || bytes[end] == 0x09
                    end += 1
                }
                // The second number is the end, doubled, plus one when the line has a tab (for `widthBound`).
                lines.append(StyledLine(deferred: source, start, end << 1 | (tabs ? 1 : 0)))
                start = end + 1
            }
            return lines
        }
    }
}

/// Builds one text line from its byte range.
final class TextLineSource: DeferredLineSource {
    private let data: Data
    private let indent: [UInt8]
    private let style: Style

    init(data: Data, indent: String, style: Style) {
        self.data = data
        self.indent = Array(indent.utf8)
        self.style = style
    }

    /// A tab becomes four spaces; every other byte is at most a column.
    func widthBound(_ start: Int, _ second: Int) -> Int {
        indent.count + ((second >> 1) - start) * (second & 1 == 1 ? 4 : 1)
    }

    func spans(_ start: Int, _ second: Int) -> [StyledLine.Span] {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var end = min(second >> 1, bytes.count)
            let start = min(max(0, start), end)
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            var line = indent
            var suspect = false
            var run = start
            for index in start..<end where JSONBytes.mayBeControl(bytes[index]) {
                guard bytes[index] == 0x09 else {
                    suspect = true
                    continue
                }
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                line.append(contentsOf: [0x20, 0x20, 0x20, 0x20])
                run = index + 1
            }
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<end]))
            let text = String(decoding: line, as: UTF8.self)
            return [StyledLine.Span(suspect ? TerminalText.line(text) : text, style)]
        }
    }
}
