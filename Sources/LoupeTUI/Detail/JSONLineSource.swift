import Foundation
import LoupeTrace
import LoupeFormats

/// Builds the spans of one re-indented JSON line from where ``JSONReindenter`` found its tokens: the indent, then
/// each token's bytes as written, styled by kind (keys `.label`, strings, numbers, `true`/`false`/`null`), with
/// `: ` after a colon and `{}`/`[]` for an empty container. Tokens holding a control character go through
/// `TerminalText`.
final class JSONLineSource: DeferredLineSource {
    private let data: Data
    private let indents: [String]

    init(data: Data, indent: String) {
        self.data = data
        indents = (0...JSONReindenter.maxIndentDepth).map { indent + String(repeating: "  ", count: $0) }
    }

    private static let keyFlag = 1 << 6

    /// The second number of a deferred line: its length in bytes, its depth and whether it opens with a key.
    static func meta(length: Int, depth: Int, key: Bool) -> Int {
        length << 8 | depth | (key ? keyFlag : 0)
    }

    /// The indent, the token bytes and the one space a line's only colon gains; whitespace between tokens and
    /// control pictures only make it narrower.
    func widthBound(_ start: Int, _ meta: Int) -> Int {
        indents[min(meta & 0x3F, JSONReindenter.maxIndentDepth)].utf8.count + meta >> 8 + 1
    }

    func spans(_ start: Int, _ meta: Int) -> [StyledLine.Span] {
        let end = start + meta >> 8
        var spans = [StyledLine.Span(indents[min(meta & 0x3F, JSONReindenter.maxIndentDepth)], .normal)]
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard start >= 0, end <= bytes.count else { return }
            var index = start
            var keyPending = meta & Self.keyFlag != 0
            while index < end {
                let tokenStart = index
                let style: Style
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    index += 1
                    continue
                case 0x7B, 0x5B:  // { [, or {} [] when empty
                    let after = JSONBytes.skipWhitespace(bytes, from: index + 1, limit: end)
                    let empty = after < end && bytes[after] == bytes[index] + 2
                    Self.append(bytes[index] == 0x7B ? (empty ? "{}" : "{") : (empty ? "[]" : "["), .normal, to: &spans)
                    index = empty ? after + 1 : index + 1
                    continue
                case 0x7D: Self.append("}", .normal, to: &spans); index += 1; continue
                case 0x5D: Self.append("]", .normal, to: &spans); index += 1; continue
                case 0x2C: Self.append(",", .normal, to: &spans); index += 1; continue
                case 0x3A: Self.append(": ", .normal, to: &spans); index += 1; continue
                case 0x22:
                    index = JSONBytes.stringEnd(bytes, from: index, limit: end).index
                    style = keyPending ? .label : .jsonString
                case 0x2D, 0x30...0x39:
                    while index < end, JSONBytes.isNumberByte(bytes[index]) { index += 1 }
                    style = .jsonNumber
                case 0x61...0x7A:
                    while index < end, bytes[index] >= 0x61, bytes[index] <= 0x7A { index += 1 }
                    style = .jsonLiteral
                default:
                    // The layout pass never puts another byte in a line; shown as it is should that change.
                    index += 1
                    style = .normal
                }
                keyPending = false
                let token = UnsafeBufferPointer(rebasing: bytes[tokenStart..<index])
                let text = String(decoding: token, as: UTF8.self)
                Self.append(token.contains(where: JSONBytes.mayBeControl) ? TerminalText.line(text) : text, style,
                            to: &spans)
            }
        }
        return spans
    }

    private static func append(_ text: String, _ style: Style, to spans: inout [StyledLine.Span]) {
        if spans[spans.count - 1].style == style {
            spans[spans.count - 1].text += text
        } else {
            spans.append(StyledLine.Span(text, style))
        }
    }
}
