@_spi(JSON) import LoupeTrace

/// RFC 8259's number grammar, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as the detail view asks it
/// of one number token: the tokenizer's (`JSONTokenizer.numberVerdict`), in the view's own words.
enum JSONNumberGrammar {
    enum Verdict: Equatable {
        /// A whole number.
        case valid
        /// Not a number yet, but more bytes could make it one (`-`, `1.`, `2e+`): a body cut short.
        case prefix
        case invalid
    }

    static func classify(_ token: UnsafeBufferPointer<UInt8>) -> Verdict {
        switch JSONTokenizer.numberVerdict(token) {
        case .valid: .valid
        case .prefix: .prefix
        case .invalid: .invalid
        }
    }
}
