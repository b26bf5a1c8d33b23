/// The Unicode character classes the filter regex engine knows, defined as ICU (`NSRegularExpression`) defines
/// them, so that patterns keep the meaning they had when filters ran on ICU.
enum RegexUnicode {
    /// `\d`: decimal digits in any script (`\p{Nd}`).
    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x30...0x39).contains(scalar.value) }
        return scalar.properties.generalCategory == .decimalNumber
    }

    /// `\w` and the word test of `\b`: `[\p{Alphabetic}\p{Mark}\p{Nd}\p{Pc}\u200C\u200D]`.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                || value == 0x5F
        }
        if scalar.value == 0x200C || scalar.value == 0x200D { return true }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    /// `\s`: the Unicode White_Space property.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }

    /// `\h`: tab and space separators (`[\t\p{Zs}]`).
    static func isHorizontalSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x09 || scalar.properties.generalCategory == .spaceSeparator
    }

    /// `\v`, and what `.`, `^` and `$` treat as ending a line: `[\n\x0B\f\r\x85\u2028\u2029]`.
    static func isLineTerminator(_ value: UInt32) -> Bool {
        (0x0A...0x0D).contains(value) || value == 0x85 || value == 0x2028 || value == 0x2029
    }

    /// Characters `\b` looks through, as ICU does: combining marks (Grapheme_Extend) and format characters.
    static func isTransparentToWordBoundary(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        return scalar.properties.isGraphemeExtend || scalar.properties.generalCategory == .format
    }

    /// The scalars a case-insensitive comparison treats as `scalar` (simple, one-to-one case mappings only).
    static func caseVariants(_ scalar: Unicode.Scalar) -> [UInt32] {
        if scalar.isASCII {
            let value = scalar.value
            if (0x41...0x5A).contains(value) { return [value + 0x20] }
            if (0x61...0x7A).contains(value) { return [value - 0x20] }
            return []
        }
        // The closure of the one-to-one mappings: `K` (Kelvin sign) → `k` → `K`, so `[A-Z]` finds the Kelvin sign.
        var variants: [UInt32] = []
        var pending = [scalar]
        while let next = pending.popLast() {
            let properties = next.properties
            for mapping in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping] {
                if let single = singleScalar(mapping), single != scalar, !variants.contains(single.value) {
                    variants.append(single.value)
                    pending.append(single)
                }
            }
        }
        return variants
    }

    /// One representative per case-insensitive equivalence class: lower(upper(c)), so `ς`, `σ` and `Σ` share one.
    static func foldKey(_ scalar: Unicode.Scalar) -> UInt32 {
        if scalar.isASCII {
            return (0x41...0x5A).contains(scalar.value) ? scalar.value + 0x20 : scalar.value
        }
        let upper = singleScalar(scalar.properties.uppercaseMapping) ?? scalar
        return (singleScalar(upper.properties.lowercaseMapping) ?? upper).value
    }

    private static func singleScalar(_ text: String) -> Unicode.Scalar? {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex else { return nil }
        return first
    }
}
