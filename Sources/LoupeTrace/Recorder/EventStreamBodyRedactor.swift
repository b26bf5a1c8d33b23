import Foundation

/// Redacts a `text/event-stream` body as its events are: each block's `data:` lines joined, as the event's data is,
/// then its fields redacted by name with ``JSONFieldRedactor``, whatever the values' length.
///
/// The stream's events are recorded one by one and redacted so; the exchange also keeps the stream's first bytes as
/// its body, and short values (`"otp": "4821"`) escaped there, since only values of ``RedactionPolicy/minimumScrubLength``
/// or more are scrubbed by value (issue 44, item 5). The data is scanned, not parsed, so JSON that follows a word
/// (`data: update {"token": …}`) or is cut at the recorder's cap is redacted too. A block whose data changed has its
/// data lines written again at the place of the first, one per line of the redacted data; every other byte, the
/// other fields and the line ends included, is kept.
enum EventStreamBodyRedactor {
    /// Whether `contentType` is `text/event-stream` (parameters, blanks and case aside). Asked of every body with a
    /// type, so over the string's bytes, without making a lowercased copy of each `application/json; charset=utf-8`.
    static func isEventStream(_ contentType: String) -> Bool {
        var bytes = contentType.utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        guard bytes.count >= eventStream.count else { return false }
        for wanted in eventStream {
            let byte = bytes.removeFirst()
            guard byte == wanted || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == wanted) else {
                return false
            }
        }
        while let next = bytes.first, next == 0x20 || next == 0x09 { bytes = bytes.dropFirst() }
        return bytes.isEmpty || bytes.first == UInt8(ascii: ";")
    }

    private static let eventStream: [UInt8] = Array("text/event-stream".utf8)

    /// One line of the body: where it starts, where its text ends and where its line end does.
    private struct Line {
        var start: Int
        var end: Int
        var next: Int
        /// Where the value of a `data` field starts (after the colon and one space), nil for any other line.
        var dataValue: Int?
    }

    /// The body with each event's data redacted by name; nil when nothing changed.
    static func redact(_ body: Data, names: RedactionNames, headerNames: RedactionNames,
                       collecting secrets: inout SecretCollector) -> Data? {
        guard !names.isEmpty || !headerNames.isEmpty, body.contains(UInt8(ascii: "\"")) else { return nil }
        let bytes = [UInt8](body)
        var output: [UInt8] = []
        var copied = 0
        var block: [Line] = []
        var position = 0
        func endBlock() {
            defer { block.removeAll(keepingCapacity: true) }
            let data = block.filter { $0.dataValue != nil }
            guard let first = data.first else { return }
            var joined: [UInt8] = []
            for (index, line) in data.enumerated() {
                if index > 0 { joined.append(0x0A) }
                joined += bytes[line.dataValue!..<line.end]
            }
            let redacted = joined.withUnsafeBufferPointer {
                JSONFieldRedactor.redact($0, names: names, headerNames: headerNames, collecting: &secrets)
            }
            guard let redacted else { return }
            output += bytes[copied..<block[0].start]
            let lineEnd = Array(bytes[first.end..<first.next])
            for line in block {
                if line.dataValue == nil {
                    output += bytes[line.start..<line.next]
                } else if line.start == first.start {
                    for piece in redacted.split(separator: 0x0A, omittingEmptySubsequences: false) {
                        output += Array("data: ".utf8) + piece + (lineEnd.isEmpty ? [0x0A] : lineEnd)
                    }
                    if lineEnd.isEmpty { output.removeLast() }  // the body was cut inside this line
                }
            }
            copied = block.last!.next
        }
        while position < bytes.count {
            var end = position
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            var next = end
            if next < bytes.count { next += bytes[next] == 0x0D && next + 1 < bytes.count && bytes[next + 1] == 0x0A ? 2 : 1 }
            if end == position, next > end {
                block.append(Line(start: position, end: end, next: next, dataValue: nil))
                endBlock()
            } else {
                block.append(Line(start: position, end: end, next: next, dataValue: dataValue(bytes, start: position, end: end)))
            }
            position = next
        }
        endBlock()
        guard !output.isEmpty || copied > 0 else { return nil }
        output += bytes[copied...]
        return Data(output)
    }

    /// Where a `data` line's value starts: after `data:` and one space; nil when the line is another field's.
    private static func dataValue(_ bytes: [UInt8], start: Int, end: Int) -> Int? {
        let field: [UInt8] = [0x64, 0x61, 0x74, 0x61]  // d a t a
        guard end - start >= 4, Array(bytes[start..<(start + 4)]) == field else { return nil }
        var value = start + 4
        guard value == end || bytes[value] == UInt8(ascii: ":") else { return nil }
        if value < end { value += 1 }
        if value < end, bytes[value] == UInt8(ascii: " ") { value += 1 }
        return value
    }
}
