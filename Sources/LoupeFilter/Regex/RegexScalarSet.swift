/// A set of Unicode scalars one regex step can consume: a literal, `.`, a class `[…]` or an escape like `\d`.
///
/// Membership of ASCII scalars is worked out once, into a 128-bit mask, because filters mostly search ASCII text.
struct RegexScalarSet: Sendable {
    enum Item: Sendable, Equatable {
        case range(UInt32, UInt32)
        case property(Property, negated: Bool)
    }

    enum Property: Sendable, Equatable {
        case digit, word, space, horizontalSpace, lineTerminator

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .digit: RegexUnicode.isDigit(scalar)
            case .word: RegexUnicode.isWord(scalar)
            case .space: RegexUnicode.isSpace(scalar)
            case .horizontalSpace: RegexUnicode.isHorizontalSpace(scalar)
            case .lineTerminator: RegexUnicode.isLineTerminator(scalar.value)
            }
        }
    }

    let items: [Item]
    let negated: Bool
    /// Whether letters match in either case: a scalar is in the set when it or one of its case variants is.
    let caseless: Bool
    private var asciiLow: UInt64 = 0
    private var asciiHigh: UInt64 = 0

    init(_ items: [Item], negated: Bool = false, caseless: Bool = false) {
        self.items = items
        self.negated = negated
        self.caseless = caseless
        for value in UInt32(0)..<128 where slowContains(value) {
            if value < 64 { asciiLow |= 1 << UInt64(value) } else { asciiHigh |= 1 << UInt64(value - 64) }
        }
    }

    /// One scalar (a literal in the pattern).
    static func scalar(_ scalar: Unicode.Scalar, caseless: Bool) -> Self {
        guard scalar.isASCII else { return Self([.range(scalar.value, scalar.value)], caseless: caseless) }
        // An ASCII literal's ASCII members are itself and, caseless, its other case: no need to test all 128 (that
        // cost a 10,000-character pasted filter most of a second). Non-ASCII members (`K`, the
        // Kelvin sign, for a caseless `k`) are still found by `slowContains`.
        var set = Self(items: [.range(scalar.value, scalar.value)], caseless: caseless)
        var members = [scalar.value]
        if caseless, let other = RegexUnicode.caseVariants(scalar).first { members.append(other) }
        for value in members {
            if value < 64 { set.asciiLow |= 1 << UInt64(value) } else { set.asciiHigh |= 1 << UInt64(value - 64) }
        }
        return set
    }

    /// A set whose ASCII masks the caller fills in.
    private init(items: [Item], caseless: Bool) {
        self.items = items
        self.negated = false
        self.caseless = caseless
    }

    /// `.`: anything but a line terminator, or anything at all with `(?s)`.
    static func dot(matchesLineTerminators: Bool) -> Self {
        matchesLineTerminators ? Self([], negated: true) : Self([.property(.lineTerminator, negated: false)], negated: true)
    }

    /// The ASCII members, as bits 0–63 and 64–127.
    var asciiMasks: (low: UInt64, high: UInt64) { (asciiLow, asciiHigh) }

    func contains(_ value: UInt32) -> Bool {
        if value < 64 { return asciiLow & (1 << UInt64(value)) != 0 }
        if value < 128 { return asciiHigh & (1 << UInt64(value - 64)) != 0 }
        return slowContains(value)
    }

    private func slowContains(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return negated }
        var found = itemsContain(scalar)
        if !found, caseless {
            let key = RegexUnicode.foldKey(scalar)
            found = RegexUnicode.caseVariants(scalar).contains { variant in Unicode.Scalar(variant).map(itemsContain) ?? false }
                || items.contains { item in
                    // A single scalar matches anything with the same fold key (`K` the Kelvin sign and `k`).
                    guard case .range(let low, let high) = item, low == high, let single = Unicode.Scalar(low)
                    else { return false }
                    return RegexUnicode.foldKey(single) == key
                }
        }
        return found != negated
    }

    private func itemsContain(_ scalar: Unicode.Scalar) -> Bool {
        items.contains { item in
            switch item {
            case .range(let low, let high): (low...high).contains(scalar.value)
            case .property(let property, let negated): property.contains(scalar) != negated
            }
        }
    }
}
