import Foundation

/// The secret values found while redacting one exchange by name, to be scrubbed from the rest of it by value.
///
/// Each value is kept once, in its decoded form; ``ValueScrubber`` derives the encoded forms to search for.
/// Values shorter than `minimumLength` bytes, and anything the redaction marker itself contains, are ignored:
/// scrubbing them everywhere would damage innocent text (or the markers already written).
package struct SecretCollector {
    /// At most this many bytes of distinct values are kept per exchange; further values are still redacted where
    /// they are named, only not searched for elsewhere (bounds the scrubber's memory on hostile bodies).
    static let byteBudget = 64 * 1024

    package let minimumLength: Int
    /// The values kept, distinct, in the order they were found. A list, not a `Set`: an exchange keeps two or three
    /// (a bearer header and its token), and a `Set` allocated, hashed and grew for each of them, and was hashed again
    /// to find the exchange's scrubber in ``ValueScrubberCache``.
    package private(set) var list: [String] = []
    /// The kept values as a set, for lookups past ``indexedFrom`` values (a hostile body may hold thousands).
    private var index: Set<String> = []
    private var bytes = 0

    /// From this many values on, ``index`` answers whether a value is kept; below it, comparing with each is cheaper
    /// than hashing.
    static let indexedFrom = 16

    /// The kept values as a set.
    package var values: Set<String> { Set(list) }

    package init(minimumLength: Int) {
        self.minimumLength = max(1, minimumLength)
    }

    package var isEmpty: Bool { list.isEmpty }

    /// Whether no value can ever be kept (no value is `Int.max` bytes long): the redactions that only want the
    /// redacted text (`redact(headers:)`, `redact(url:)`, a HAR import) pass such a collector, and the work of
    /// finding credentials inside values is skipped for it.
    package var keepsNothing: Bool { minimumLength == .max }

    /// Adds one value as it is (surrounding white space and quotes trimmed).
    package mutating func add(_ value: some StringProtocol) {
        guard !keepsNothing, let candidate = Self.candidate(value) else { return }
        keep(candidate)
    }

    /// `value` trimmed, unless it is part of a redaction marker (then `nil`): what ``add(_:)`` decides from the
    /// value alone, before the collector's own limits.
    fileprivate static func candidate(_ value: some StringProtocol) -> String? {
        let trimmed = trimmed(value, quotes: true)
        guard !isPart(trimmed, of: RedactionPolicy.marker), !isPart(trimmed, of: RedactionPolicy.urlMarker) else {
            return nil
        }
        return trimmed
    }

    /// Keeps a candidate (trimmed, not part of a marker) within this collector's length and byte limits.
    private mutating func keep(_ candidate: String) {
        let length = candidate.utf8.count
        guard length >= minimumLength, bytes + length <= Self.byteBudget, !contains(candidate) else { return }
        if list.isEmpty { list.reserveCapacity(4) }  // one allocation for the usual two or three
        list.append(candidate)
        if list.count >= Self.indexedFrom {
            if index.isEmpty { index = Set(list) } else { index.insert(candidate) }
        }
        bytes += length
    }

    /// Whether `value` is kept already.
    private func contains(_ value: String) -> Bool {
        list.count >= Self.indexedFrom ? index.contains(value) : list.contains(value)
    }

    /// `value` without the white space (and, with `quotes`, the double quotes) around it. White space is Unicode's
    /// White_Space and U+200B, the set of Foundation's `whitespacesAndNewlines` on Linux (a test compares them on
    /// random text). Worked out on scalars: Foundation's `trimmingCharacters` goes through `NSString` on Linux and
    /// cost more than the rest of a recorded exchange's redaction.
    package static func trimmed(_ value: some StringProtocol, quotes: Bool) -> String {
        let text = String(value)
        let scalars = text.unicodeScalars
        func trims(_ scalar: Unicode.Scalar) -> Bool {
            if scalar == "\"" { return quotes }
            if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
            return scalar.properties.isWhitespace || scalar == "\u{200B}"
        }
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, trims(scalars[start]) { start = scalars.index(after: start) }
        while end > start, trims(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return start == scalars.startIndex && end == scalars.endIndex ? text : String(scalars[start..<end])
    }

    /// Whether `piece` occurs in `text`, byte for byte (the markers are ASCII).
    package static func isPart(_ piece: String, of text: String) -> Bool {
        guard !piece.isEmpty, piece.utf8.count <= text.utf8.count else { return false }
        // Over the strings' own bytes: two arrays per call were four allocations for every secret collected (the
        // recorder collects the bearer token of every exchange).
        var (piece, text) = (piece, text)
        return piece.withUTF8 { piece in
            text.withUTF8 { text in
                (0...(text.count - piece.count)).contains {
                    UnsafeBufferPointer(rebasing: text[$0..<($0 + piece.count)]).elementsEqual(piece)
                }
            }
        }
    }

    /// Adds a percent-encoded value (query item, form field, URL password) and its decoded form.
    package mutating func addEncoded(_ raw: some StringProtocol) {
        guard !keepsNothing else { return }
        for value in Self.decodings(raw) { add(value) }
    }

    /// A percent-encoded value as is, decoded as a form field (`+` for space) and, when that differs, strictly.
    fileprivate static func decodings(_ raw: some StringProtocol) -> [String] {
        let raw = String(raw)
        var values = [raw]
        let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        if let decoded { values.append(decoded) }
        if let strict = raw.removingPercentEncoding, strict != decoded { values.append(strict) }
        return values
    }

    /// Adds a redacted header's value and the credentials inside it: the part after an auth scheme (`Bearer t`),
    /// a Basic header's decoded `user:password` and password, auth parameters (`Signature=…`) and cookie values.
    ///
    /// What a header gives depends on its name and value alone, so it is worked out once per recent pair
    /// (``HeaderSecretsCache``): every request of a client carries the same `Authorization` header, and splitting
    /// it, decoding it and trimming each part was half of what redacting an exchange's headers cost.
    /// This collector's own limits (minimum length, byte budget, values already kept) apply to each use as before.
    package mutating func addHeader(name: String, value: String) {
        guard !keepsNothing, value != RedactionPolicy.marker else { return }
        let candidates = HeaderSecretsCache.candidates(name: name, value: value)
        // An exchange's first secrets are usually its bearer header's. When `keep` would keep every candidate as it
        // comes, the list it would build is the cache's own: shared instead of allocated and filled,
        // and ``ValueScrubberCache`` then finds the exchange's scrubber by the list's identity.
        if list.isEmpty, let total = keepsEvery(candidates) {
            list = candidates
            bytes = total
            return
        }
        for candidate in candidates { keep(candidate) }
    }

    /// The candidates' bytes in all when an empty collector's `keep` would keep each of them, in order (each long
    /// enough, all within the budget, no two equal, fewer than ``indexedFrom``); `nil` otherwise.
    private func keepsEvery(_ candidates: [String]) -> Int? {
        guard candidates.count < Self.indexedFrom else { return nil }
        var total = 0
        for (index, candidate) in candidates.enumerated() {
            let length = candidate.utf8.count
            guard length >= minimumLength, total + length <= Self.byteBudget else { return nil }
            for earlier in candidates[..<index] where earlier == candidate { return nil }
            total += length
        }
        return total
    }

    /// The candidates (``candidate(_:)``, in the order ``add(_:)`` would meet them) a header gives: its value and
    /// the credentials inside it. A pure function of the pair; ``HeaderSecretsCache`` keeps its recent answers.
    static func headerCandidates(name: String, value: String) -> [String] {
        var found = CandidateList()
        found.addHeader(name: name, value: value)
        return found.candidates
    }
}

/// Collects what ``SecretCollector/addHeader(name:value:)`` finds, before any collector's limits apply: the header
/// parsing written once, for both.
private struct CandidateList {
    var candidates: [String] = []

    mutating func add(_ value: some StringProtocol) {
        guard let candidate = SecretCollector.candidate(value) else { return }
        candidates.append(candidate)
    }

    mutating func addEncoded(_ raw: some StringProtocol) {
        for value in SecretCollector.decodings(raw) { add(value) }
    }

    mutating func addHeader(name: String, value: String) {
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
        let trimmed = SecretCollector.trimmed(value, quotes: false)
        // An auth scheme is a token; bytes past ASCII are let through as the letters they may be part of.
        guard let space = trimmed.utf8.firstIndex(of: UInt8(ascii: " ")),
              trimmed.utf8[..<space].allSatisfy({
                  ASCIIBytes.isLetter($0) || ASCIIBytes.isDigit($0) || $0 == UInt8(ascii: "-") || $0 >= 0x80
              }) else { return }
        let isBasic = trimmed.utf8[..<space].map { $0 | 0x20 }.elementsEqual("basic".utf8)
        let credentials = SecretCollector.trimmed(trimmed[trimmed.utf8.index(after: space)...], quotes: false)
        add(credentials)
        if isBasic, let data = Data(base64Encoded: credentials), let pair = String(data: data, encoding: .utf8) {
            add(pair)
            if let colon = pair.firstIndex(of: ":") { add(pair[pair.index(after: colon)...]) }
        }
        // `Digest …, response="…"`, `AWS4-HMAC-SHA256 Credential=…, Signature=…`, OAuth 1: the secret parameters
        // (not `uri` or `realm`, which would scrub the URL's path or innocent text).
        if credentials.utf8.contains(UInt8(ascii: "=")) {
            for parameter in credentials.split(separator: ",") {
                guard let equals = parameter.firstIndex(of: "="),
                      Self.secretAuthParameters.contains(RedactionNames.normalized(
                          SecretCollector.trimmed(parameter[..<equals], quotes: false))) else { continue }
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
        addEncoded(SecretCollector.trimmed(cookie[cookie.index(after: equals)...], quotes: false))
    }
}
