import Foundation

/// The spellings a secret value takes in recorded text: as is, JSON-escaped, percent-encoded and base64.
///
/// Every form is what some common encoder writes: JSON with and without `\/` and `\uXXXX` escapes;
/// percent-encoding of everything but RFC 3986's unreserved characters (upper- and lower-case hex, `+` for
/// space as forms do, `/` kept as Python's `quote` does), as Java's `URLEncoder` and JavaScript's
/// `encodeURIComponent` write it, and of what Foundation's query encoding leaves out;
/// base64 in both alphabets, padded and not, plus, for each of the three byte offsets a value can start at inside
/// a longer base64 blob, the characters that depend only on the value (so a password inside a base64-encoded
/// body is found too).
enum SecretForms {
    /// The distinct byte strings to search for, each at least `minimumLength` long.
    static func needles(for values: some Sequence<String>, minimumLength: Int) -> [[UInt8]] {
        var needles = Set<[UInt8]>()
        for value in values {
            for form in forms(of: value) where form.utf8.count >= minimumLength {
                needles.insert(Array(form.utf8))
            }
        }
        return Array(needles)
    }

    static func forms(of value: String) -> Set<String> {
        var forms: Set<String> = [value]
        // Most tokens are letters, digits and `-._~`: every escaping leaves them as they are.
        if !value.utf8.allSatisfy(isUnreserved) {
            forms.formUnion(jsonEscaped(value))
            forms.formUnion(percentEncoded(value))
        }
        forms.formUnion(base64(Array(value.utf8)))
        return forms
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    // MARK: JSON

    static func jsonEscaped(_ value: String) -> [String] {
        var plain = "", slashes = "", ascii = ""
        for scalar in value.unicodeScalars {
            let escaped: String
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            case "\u{08}": escaped = "\\b"
            case "\u{0C}": escaped = "\\f"
            case _ where scalar.value < 0x20: escaped = String(format: "\\u%04x", scalar.value)
            default: escaped = String(scalar)
            }
            plain += escaped
            slashes += scalar == "/" ? "\\/" : escaped
            if scalar.value < 0x80 {
                ascii += scalar == "/" ? "\\/" : escaped
            } else {
                for unit in String(scalar).utf16 { ascii += String(format: "\\u%04x", unit) }
            }
        }
        return [plain, slashes, ascii, ascii.replacingOccurrences(of: "/", with: "\\/")]
    }

    // MARK: Percent-encoding

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static let javaAllowed = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")
    private static let javaScriptAllowed = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")

    static func percentEncoded(_ value: String) -> [String] {
        var forms: [String] = []
        guard let strict = value.addingPercentEncoding(withAllowedCharacters: unreserved) else { return forms }
        forms.append(strict)
        forms.append(lowercasedEscapes(strict))
        forms.append(strict.replacingOccurrences(of: "%20", with: "+"))
        forms.append(strict.replacingOccurrences(of: "%2F", with: "/"))
        // Java's URLEncoder (`*` kept, `~` encoded, `+` for space) and JavaScript's encodeURIComponent.
        if let java = value.addingPercentEncoding(withAllowedCharacters: javaAllowed) {
            forms.append(java.replacingOccurrences(of: "%20", with: "+"))
        }
        if let javaScript = value.addingPercentEncoding(withAllowedCharacters: javaScriptAllowed) {
            forms.append(javaScript)
        }
        if let query = value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) {
            forms.append(query)
            var valueAllowed = CharacterSet.urlQueryAllowed
            valueAllowed.remove(charactersIn: "&=+;")
            if let strictQuery = value.addingPercentEncoding(withAllowedCharacters: valueAllowed) {
                forms.append(strictQuery)
            }
        }
        return forms
    }

    private static func lowercasedEscapes(_ text: String) -> String {
        var result = ""
        var remaining = 0
        for character in text {
            if character == "%" {
                remaining = 2
                result.append(character)
            } else if remaining > 0 {
                remaining -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    // MARK: Base64

    static func base64(_ bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [] }
        let padded = Data(bytes).base64EncodedString()
        var forms = [padded, padded.trimmingCharacters(in: ["="])]
        // Inside a longer blob the value starts 0, 1 or 2 bytes into a 3-byte group; keep the characters whose
        // 6 bits all come from the value.
        for offset in 0..<3 {
            let encoded = Array(Data(Array(repeating: 0, count: offset) + bytes).base64EncodedString().utf8)
            let firstBit = offset * 8, endBit = (offset + bytes.count) * 8
            let first = (firstBit + 5) / 6, end = endBit / 6
            guard first < end, end <= encoded.count else { continue }
            forms.append(String(decoding: encoded[first..<end], as: UTF8.self))
        }
        return forms.flatMap { [$0, urlSafe($0)] }
    }

    private static func urlSafe(_ base64: String) -> String {
        String(base64.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }).trimmingCharacters(in: ["="])
    }
}
