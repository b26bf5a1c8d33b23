import Foundation

/// The secret values found while redacting one exchange by name, to be scrubbed from the rest of it by value.
///
/// Each value is kept once, in its decoded form; ``ValueScrubber`` derives the encoded forms to search for.
/// Values shorter than `minimumLength` bytes, and anything the redaction marker itself contains, are ignored:
/// scrubbing them everywhere would damage innocent text (or the markers already written).
struct SecretCollector {
    /// At most this many bytes of distinct values are kept per exchange; further values are still redacted where
    /// they are named, only not searched for elsewhere (bounds the scrubber's memory on hostile bodies).
    static let byteBudget = 64 * 1024

    let minimumLength: Int
    private(set) var values: Set<String> = []
    private var bytes = 0

    init(minimumLength: Int) {
        self.minimumLength = max(1, minimumLength)
    }

    var isEmpty: Bool { values.isEmpty }

    /// Whether no value can ever be kept (no value is `Int.max` bytes long): the redactions that only want the
    /// redacted text (`redact(headers:)`, `redact(url:)`, a HAR import) pass such a collector, and the work of
    /// finding credentials inside values is skipped for it.
    var keepsNothing: Bool { minimumLength == .max }

    /// Adds one value as it is (surrounding white space and quotes trimmed).
    mutating func add(_ value: some StringProtocol) {
        guard !keepsNothing else { return }
        let trimmed = value.trimmingCharacters(in: Self.trimmed)
        let length = trimmed.utf8.count
        guard length >= minimumLength, bytes + length <= Self.byteBudget,
              !RedactionPolicy.marker.contains(trimmed), !RedactionPolicy.urlMarker.contains(trimmed),
              !values.contains(trimmed) else { return }
        values.insert(trimmed)
        bytes += length
    }

    private static let trimmed = CharacterSet.whitespacesAndNewlines.union(["\""])

    /// Adds a percent-encoded value (query item, form field, URL password) and its decoded form.
    mutating func addEncoded(_ raw: some StringProtocol) {
        guard !keepsNothing else { return }
        add(raw)
        let decoded = String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        if let decoded { add(decoded) }
        if let strict = String(raw).removingPercentEncoding, strict != decoded { add(strict) }
    }

    /// Adds a redacted header's value and the credentials inside it: the part after an auth scheme (`Bearer t`),
    /// a Basic header's decoded `user:password` and password, auth parameters (`Signature=…`) and cookie values.
    mutating func addHeader(name: String, value: String) {
        guard !keepsNothing, value != RedactionPolicy.marker else { return }
        add(value)
        switch RedactionNames.normalized(name) {
        case "cookie":
            for cookie in value.split(separator: ";") { addCookie(cookie) }
            return
        case "setcookie":
            if let first = value.split(separator: ";").first { addCookie(first) }
            return
        default:
            break
        }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "),
              trimmed[..<space].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return }
        let scheme = trimmed[..<space].lowercased()
        let credentials = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
        add(credentials)
        if scheme == "basic", let data = Data(base64Encoded: credentials), let pair = String(data: data, encoding: .utf8) {
            add(pair)
            if let colon = pair.firstIndex(of: ":") { add(pair[pair.index(after: colon)...]) }
        }
        // `Digest …, response="…"`, `AWS4-HMAC-SHA256 Credential=…, Signature=…`, OAuth 1: the secret parameters
        // (not `uri` or `realm`, which would scrub the URL's path or innocent text).
        if credentials.contains("=") {
            for parameter in credentials.split(separator: ",") {
                guard let equals = parameter.firstIndex(of: "="),
                      Self.secretAuthParameters.contains(RedactionNames.normalized(
                          parameter[..<equals].trimmingCharacters(in: .whitespaces))) else { continue }
                addEncoded(parameter[parameter.index(after: equals)...])
            }
        }
    }

    /// Auth parameters (loose form) whose values are credentials.
    private static let secretAuthParameters: Set<String> = [
        "response", "signature", "credential", "token", "sig", "oauthsignature", "oauthtoken", "cnonce",
    ]

    private mutating func addCookie(_ cookie: some StringProtocol) {
        guard let equals = cookie.firstIndex(of: "=") else { return }
        addEncoded(cookie[cookie.index(after: equals)...].trimmingCharacters(in: .whitespaces))
    }
}
