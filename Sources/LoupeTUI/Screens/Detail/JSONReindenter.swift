import Foundation
@_spi(JSON) import LoupeTrace

/// Re-indents JSON text token by token, so every value reads exactly as it was sent.
///
/// Decoding and re-encoding (JSONSerialization, Codable) would change what the server said: `1.10` becomes `1.1`,
/// `12345678901234567890` a rounded double, `"\u00e9"` an `é`, and keys get re-ordered. Here each token's bytes are
/// copied as they are; only whitespace between tokens is replaced. It reads the tokens of the one ``JSONTokenizer``
/// with an explicit container stack, never recursion, so nesting depth costs memory, not stack. It checks the grammar as
/// it goes, which tells a body cut short (still indented: bodies are capped when stored) from one that is not JSON.
/// Several top-level values in a row (JSON Lines) are accepted, one after another.
///
/// This pass only lays the text out: each line is a deferred ``StyledLine`` holding where its tokens are, and
/// ``JSONLineSource`` builds its spans when it is read, so a 1 MiB body costs one pass over the bytes and a line
/// record per line, and only lines drawn are ever styled. Written for debug builds too: every method is
/// `mutating` or `static` (calling a non-mutating method from a mutating one copies the whole struct there), and
/// bytes are compared with literals (`UInt8(ascii:)` is a call there).
struct JSONReindenter {
    /// How far the text got.
    enum Outcome: Equatable {
        /// One or more whole values.
        case complete
        /// A valid beginning that ends early (a truncated recording): the lines show what there is.
        case incomplete
        /// Not JSON: the first offending byte's offset.
        case invalid(offset: Int)
    }

    /// Deeper levels are drawn at this depth, so a pathologically nested body cannot push text off any screen.
    static let maxIndentDepth = 32

    private enum Expect { case value, valueOrClose, key, keyOrClose, colon, commaOrClose, next }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let source: JSONLineSource
    /// The open containers: `{` (0x7B) or `[` (0x5B); `top` is the innermost, 0 at the top level.
    private var containers: [UInt8] = []
    private var top: UInt8 = 0
    private var expect = Expect.value
    private var lines: [StyledLine] = []
    /// How many lines `lines` held before this text's (it appends to its caller's array).
    private var firstLine = 0
    /// Where the current line's first token starts (-1 before it has one) and its last one ends.
    private var lineStart = -1
    private var lineEnd = 0
    /// The current line's depth and whether it opens with a key (``JSONLineSource/meta(length:depth:key:)``).
    private var lineDepth = 0
    private var lineKey = false

    /// The lines of `data` re-indented by two spaces a level below `indent`, styled by token, and how far the
    /// text was JSON. On `.invalid` the lines are those before the error (callers show the text instead).
    static func reindent(_ data: Data, indent: String) -> (lines: [StyledLine], outcome: Outcome) {
        var lines: [StyledLine] = []
        let outcome = reindent(data, indent: indent, appendingTo: &lines)
        return (lines, outcome)
    }

    /// ``reindent(_:indent:)`` with the lines appended to `lines`, the detail tab's own array: a 1 MiB body has
    /// some 65,000 lines, and an array of its own would be copied whole into the tab's (a retain and a release a
    /// line, each time) — more than the layout itself costs.
    static func reindent(_ data: Data, indent: String, appendingTo lines: inout [StyledLine]) -> Outcome {
        let source = JSONLineSource(data: data, indent: indent)
        return data.withUnsafeBytes { raw in
            var reindenter = JSONReindenter(bytes: raw.bindMemory(to: UInt8.self), source: source)
            // The caller's array is moved in and back out (a swap of two references), never copied.
            swap(&reindenter.lines, &lines)
            reindenter.firstLine = reindenter.lines.count
            reindenter.lines.reserveCapacity(reindenter.firstLine + data.count / 16)
            let outcome = reindenter.run()
            reindenter.newline()
            swap(&reindenter.lines, &lines)
            return outcome
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, source: JSONLineSource) {
        self.bytes = bytes
        self.source = source
    }

    private mutating func run() -> Outcome {
        let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var tokens = JSONTokenizer(bytes, from: bom ? 3 : 0)
        while true {
            let token = tokens.next()
            let start = token.start
            // Pattern matches, not `==`: in a debug build `==` on an enum is a call, and this runs per token.
            let expectsValue: Bool
            let expectsKey: Bool
            switch expect {
            case .value, .valueOrClose, .next: (expectsValue, expectsKey) = (true, false)
            case .key, .keyOrClose: (expectsValue, expectsKey) = (false, true)
            case .colon, .commaOrClose: (expectsValue, expectsKey) = (false, false)
            }
            switch token.kind {
            case .end:
                if case .next = expect, top == 0 { return .complete }
                return lines.count == firstLine && lineStart < 0 ? .invalid(offset: 0) : .incomplete
            case .beginObject, .beginArray:
                guard expectsValue else { return .invalid(offset: start) }
                open(start, &tokens)
            case .endObject, .endArray:
                let isObject = bytes[start] == 0x7D
                guard top == (isObject ? 0x7B : 0x5B) else { return .invalid(offset: start) }
                switch expect {
                case .commaOrClose, .keyOrClose, .valueOrClose: break
                case .value, .key, .colon, .next: return .invalid(offset: start)
                }
                containers.removeLast()
                top = containers.isEmpty ? 0 : containers[containers.count - 1]
                newline()
                mark(start, start + 1)
                valueDone()
            case .comma:
                guard case .commaOrClose = expect else { return .invalid(offset: start) }
                mark(start, start + 1)
                newline()
                expect = top == 0x7B ? .key : .value
            case .colon:
                guard case .colon = expect else { return .invalid(offset: start) }
                mark(start, start + 1)
                expect = .value
            case .string:
                guard expectsKey || expectsValue else { return .invalid(offset: start) }
                mark(start, token.end, key: expectsKey)
                if token.isCut { return .incomplete }
                if expectsKey { expect = .colon } else { valueDone() }
            case .number:
                guard expectsValue else { return .invalid(offset: start) }
                switch tokens.numberVerdict(token) {
                case .invalid:
                    return .invalid(offset: start)
                case .prefix:
                    guard token.isCut else { return .invalid(offset: start) }
                    mark(start, token.end)
                    return .incomplete
                case .valid:
                    mark(start, token.end)
                    valueDone()
                }
            case .literal:
                // A literal runs on into any following letters (`truex` is not `true` and then `x`).
                guard expectsValue, token.end == bytes.count || bytes[token.end] < 0x61 || bytes[token.end] > 0x7A
                else { return .invalid(offset: start) }
                mark(start, token.end)
                if token.isCut { return .incomplete }
                valueDone()
            case .invalid:
                return .invalid(offset: start)
            }
        }
    }

    /// `{` or `[` at `start`; an empty container stays on one line (`{}`), as JSON.stringify prints it.
    private mutating func open(_ start: Int, _ tokens: inout JSONTokenizer) {
        let opener = bytes[start]
        let isObject = opener == 0x7B
        let afterSpace = JSONTokenizer.skipWhitespace(bytes, from: start + 1)
        if afterSpace < bytes.count, bytes[afterSpace] == opener + 2 {  // } is { + 2, ] is [ + 2
            mark(start, afterSpace + 1)
            tokens.position = afterSpace + 1
            valueDone()
            return
        }
        mark(start, start + 1)
        containers.append(opener)
        top = opener
        newline()
        expect = isObject ? .keyOrClose : .valueOrClose
    }

    private mutating func valueDone() {
        if top == 0 {
            expect = .next
            newline()
        } else {
            expect = .commaOrClose
        }
    }

    /// Adds the token at `start..<end` to the current line, which begins with it if it is the first.
    private mutating func mark(_ start: Int, _ end: Int, key: Bool = false) {
        if lineStart < 0 {
            lineStart = start
            lineDepth = min(containers.count, Self.maxIndentDepth)
            lineKey = key
        }
        lineEnd = end
    }

    private mutating func newline() {
        guard lineStart >= 0 else { return }
        let meta = JSONLineSource.meta(length: lineEnd - lineStart, depth: lineDepth, key: lineKey)
        lines.append(StyledLine(deferred: source, lineStart, meta))
        lineStart = -1
    }
}
