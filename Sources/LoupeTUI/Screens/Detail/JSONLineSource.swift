import Foundation
@_spi(JSON) import LoupeTrace

/// Builds the spans of one re-indented JSON line from where ``JSONReindenter`` found its tokens, reading them
/// again with the one ``JSONTokenizer``: the indent, then
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
            let all = raw.bindMemory(to: UInt8.self)
            guard start >= 0, end <= all.count else { return }
            // The line's bytes alone, so that no token runs past its end.
            let bytes = UnsafeBufferPointer(rebasing: all[start..<end])
            var tokens = JSONTokenizer(bytes)
            var keyPending = meta & Self.keyFlag != 0
            while true {
                let token = tokens.next()
                let style: Style
                switch token.kind {
                case .end:
                    return
                case .beginObject, .beginArray:  // { [, or {} [] when empty
                    let opener = bytes[token.start]
                    let after = JSONTokenizer.skipWhitespace(bytes, from: token.end)
                    let empty = after < bytes.count && bytes[after] == opener + 2
                    Self.append(opener == 0x7B ? (empty ? "{}" : "{") : (empty ? "[]" : "["), .normal, to: &spans)
                    if empty { tokens.position = after + 1 }
                    continue
                case .endObject: Self.append("}", .normal, to: &spans); continue
                case .endArray: Self.append("]", .normal, to: &spans); continue
                case .comma: Self.append(",", .normal, to: &spans); continue
                case .colon: Self.append(": ", .normal, to: &spans); continue
                case .string: style = keyPending ? .label : .jsonString
                case .number: style = .jsonNumber
                case .literal: style = .jsonLiteral
                case .invalid: style = .normal  // the layout pass never puts one in a line; shown as it is
                }
                keyPending = false
                let tokenBytes = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
                let text = String(decoding: tokenBytes, as: UTF8.self)
                Self.append(tokenBytes.contains(where: JSONBytes.mayBeControl) ? TerminalText.line(text) : text, style,
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
