/// RFC 8259's number grammar, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a state machine over
/// the bytes of one token (compared as literals: `0x30` is `0`, `0x2D` `-`, `0x2B` `+`, `0x2E` `.`, `0x65`/`0x45`
/// `e`/`E`).
enum JSONNumberGrammar {
    enum Verdict: Equatable {
        /// A whole number.
        case valid
        /// Not a number yet, but more bytes could make it one (`-`, `1.`, `2e+`): a body cut short.
        case prefix
        case invalid
    }

    private enum State { case start, minus, zero, integer, dot, fraction, exponent, exponentSign, exponentDigits }

    static func classify(_ token: UnsafeBufferPointer<UInt8>) -> Verdict {
        var state = State.start
        for byte in token {
            let digit = byte >= 0x30 && byte <= 0x39
            let isExponent = byte == 0x65 || byte == 0x45
            switch state {
            case .start where byte == 0x2D: state = .minus
            case .start where byte == 0x30, .minus where byte == 0x30: state = .zero
            case .start where digit, .minus where digit, .integer where digit: state = .integer
            case .zero where byte == 0x2E, .integer where byte == 0x2E: state = .dot
            case .dot where digit, .fraction where digit: state = .fraction
            case .zero where isExponent, .integer where isExponent, .fraction where isExponent: state = .exponent
            case .exponent where byte == 0x2B || byte == 0x2D: state = .exponentSign
            case .exponent where digit, .exponentSign where digit, .exponentDigits where digit: state = .exponentDigits
            default: return .invalid
            }
        }
        switch state {
        case .zero, .integer, .fraction, .exponentDigits: return .valid
        case .start, .minus, .dot, .exponent, .exponentSign: return .prefix
        }
    }
}
