import Foundation

/// Re-indents JSON text token by token, so every value reads exactly as it was sent.
///
/// Decoding and re-encoding (JSONSerialization, Codable) would change what the server said: `1.10` becomes `1.1`,
/// `12345678901234567890` a rounded double, `"\u00e9"` an `é`, and keys get re-ordered. Here each token's bytes are
/// copied as they are; only whitespace between tokens is replaced. The scanner is a loop over the bytes with an
/// explicit container stack, never recursion, so nesting depth costs memory, not stack. It checks the grammar as
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
    private var position = 0
    /// The open containers: `{` (0x7B) or `[` (0x5B); `top` is the innermost, 0 at the top level.
    private var containers: [UInt8] = []
    private var top: UInt8 = 0
    private var expect = Expect.value
    private var lines: [StyledLine] = []
    /// Where the current line's first token starts (-1 before it has one) and its last one ends.
    private var lineStart = -1
    private var lineEnd = 0
    /// The current line's depth and whether it opens with a key (``JSONLineSource/meta(length:depth:key:)``).
    private var lineDepth = 0
    private var lineKey = false

    /// The lines of `data` re-indented by two spaces a level below `indent`, styled by token, and how far the
    /// text was JSON. On `.invalid` the lines are those before the error (callers show the text instead).
    static func reindent(_ data: Data, indent: String) -> (lines: [StyledLine], outcome: Outcome) {
        let source = JSONLineSource(data: data, indent: indent)
        return data.withUnsafeBytes { raw in
            var reindenter = JSONReindenter(bytes: raw.bindMemory(to: UInt8.self), source: source)
            reindenter.lines.reserveCapacity(data.count / 16)
            let outcome = reindenter.run()
            reindenter.newline()
            return (reindenter.lines, outcome)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, source: JSONLineSource) {
        self.bytes = bytes
        self.source = source
    }

    private mutating func run() -> Outcome {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }  // a BOM
        while true {
            position = JSONBytes.skipWhitespace(bytes, from: position)
            guard position < bytes.count else { break }
            let start = position
            // Pattern matches, not `==`: in a debug build `==` on an enum is a call, and this runs per token.
            let expectsValue: Bool
            let expectsKey: Bool
            switch expect {
            case .value, .valueOrClose, .next: (expectsValue, expectsKey) = (true, false)
            case .key, .keyOrClose: (expectsValue, expectsKey) = (false, true)
            case .colon, .commaOrClose: (expectsValue, expectsKey) = (false, false)
            }
            switch bytes[position] {
            case 0x7B, 0x5B:  // { [
                guard expectsValue else { return .invalid(offset: start) }
                open()
            case 0x7D, 0x5D:  // } ]
                let isObject = bytes[position] == 0x7D
                guard top == (isObject ? 0x7B : 0x5B) else { return .invalid(offset: start) }
                switch expect {
                case .commaOrClose, .keyOrClose, .valueOrClose: break
                case .value, .key, .colon, .next: return .invalid(offset: start)
                }
                containers.removeLast()
                top = containers.isEmpty ? 0 : containers[containers.count - 1]
                newline()
                mark(position, position + 1)
                position += 1
                valueDone()
            case 0x2C:  // ,
                guard case .commaOrClose = expect else { return .invalid(offset: start) }
                mark(position, position + 1)
                newline()
                position += 1
                expect = top == 0x7B ? .key : .value
            case 0x3A:  // :
                guard case .colon = expect else { return .invalid(offset: start) }
                mark(position, position + 1)
                position += 1
                expect = .value
            case 0x22:  // "
                guard expectsKey || expectsValue else { return .invalid(offset: start) }
                guard string(isKey: expectsKey) else { return .incomplete }
                if expectsKey { expect = .colon } else { valueDone() }
            case 0x2D, 0x30...0x39:  // - 0-9
                guard expectsValue else { return .invalid(offset: start) }
                if let outcome = number() { return outcome }
            case 0x61...0x7A:  // a-z
                guard expectsValue else { return .invalid(offset: start) }
                if let outcome = literal() { return outcome }
            default:
                return .invalid(offset: start)
            }
        }
        if case .next = expect, top == 0 { return .complete }
        return lines.isEmpty && lineStart < 0 ? .invalid(offset: 0) : .incomplete
    }

    /// `{` or `[`; an empty container stays on one line (`{}`), as JSON.stringify prints it.
    private mutating func open() {
        let opener = bytes[position]
        let isObject = opener == 0x7B
        position += 1
        let afterSpace = JSONBytes.skipWhitespace(bytes, from: position)
        if afterSpace < bytes.count, bytes[afterSpace] == opener + 2 {  // } is { + 2, ] is [ + 2
            mark(position - 1, afterSpace + 1)
            position = afterSpace + 1
            valueDone()
            return
        }
        mark(position - 1, position)
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

    /// A string token from its opening quote; false when the text ends inside it.
    private mutating func string(isKey: Bool) -> Bool {
        let start = position
        let end = JSONBytes.stringEnd(bytes, from: position, limit: bytes.count)
        position = end.index
        mark(start, end.index, key: isKey)
        return end.terminated
    }

    /// A number token, kept as written; nil to go on, or the outcome when it ends the scan.
    private mutating func number() -> Outcome? {
        let start = position
        // Digits without a leading zero are a whole number; anything else is checked against the grammar.
        var plain = bytes[start] != 0x30
        while position < bytes.count {
            let byte = bytes[position]
            if byte >= 0x30 && byte <= 0x39 {
                position += 1
            } else if byte == 0x2D || byte == 0x2B || byte == 0x2E || byte == 0x65 || byte == 0x45 {
                plain = false
                position += 1
            } else {
                break
            }
        }
        let verdict: JSONNumberGrammar.Verdict = plain || position - start == 1 && bytes[start] == 0x30 ? .valid
            : JSONNumberGrammar.classify(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        switch verdict {
        case .invalid:
            return .invalid(offset: start)
        case .prefix:
            guard position == bytes.count else { return .invalid(offset: start) }
            mark(start, position)
            return .incomplete
        case .valid:
            mark(start, position)
            valueDone()
            return nil
        }
    }

    /// `true`, `false` or `null`; nil to go on, or the outcome when it ends the scan.
    private mutating func literal() -> Outcome? {
        let start = position
        while position < bytes.count, bytes[position] >= 0x61, bytes[position] <= 0x7A { position += 1 }
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if word == "true" || word == "false" || word == "null" {
            mark(start, position)
            valueDone()
            return nil
        }
        guard position == bytes.count, ["true", "false", "null"].contains(where: { $0.hasPrefix(word) }) else {
            return .invalid(offset: start)
        }
        mark(start, position)
        return .incomplete
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
