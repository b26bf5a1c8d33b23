import Foundation
import HTTPTypes

/// What the recorder hides before anything is stored: values by name, then those values wherever else they appear.
///
/// **By name.** Header values, query items and JSON or form fields whose names are in ``headerNames``,
/// ``queryItemNames`` or ``jsonFieldNames`` are replaced with ``marker``. Names match loosely (case, `-` and `_`
/// ignored; see ``RedactionNames``), and the defaults are long lists of credential names
/// (``defaultHeaderNames``, ``defaultQueryItemNames``, ``defaultFieldNames``). Values are replaced, never removed,
/// so the trace still shows that a value existed. JSON fields named like a header in ``headerNames``, parts of a
/// multipart body, a form sent without a type, and the URLs and `Bearer`/`Basic` credentials quoted inside any text
/// (``redact(text:)``) are redacted by name too; OAuth's `code` where it is one (beside `state` or `redirect_uri`,
/// or on a redirect target).
///
/// **By value.** Every value redacted by name in an exchange, every credential the client sent in a redacted
/// header on any attempt (the token after `Bearer`, a Basic header's base64 and its decoded `user:password`),
/// and ``secretValues`` are then scrubbed from everything else recorded for that exchange (URL, headers, bodies,
/// error texts, events, attempt notes), in raw, JSON-escaped, percent-encoded and base64 forms. Values shorter than
/// ``minimumScrubLength`` are only redacted where they are named: scrubbing `1` or `true` everywhere would
/// destroy the trace. See ``redact(exchange:alsoSent:)``.
///
/// ```swift
/// var policy = RedactionPolicy()                      // the default lists
/// policy.headerNames.insert("X-Tenant-Secret")
/// policy.queryItemNames.remove("key")                 // `?key=` is not a credential in this API
/// let strict = policy.adding(fields: ["ssn"]).removing(headers: ["x-csrf-token"])
/// ```
public struct RedactionPolicy: Sendable, Hashable {
    /// What a redacted value is replaced with.
    public static let marker = "[REDACTED]"
    /// The marker as it appears inside a URL (percent-encoded, so the URL stays valid and `curl` does not glob it).
    public static let urlMarker = "%5BREDACTED%5D"
    /// The default for ``minimumScrubLength``.
    public static let defaultMinimumScrubLength = 6

    /// Header names whose values are redacted.
    public var headerNames: RedactionNames
    /// Query item names whose values are redacted inside URLs.
    public var queryItemNames: RedactionNames
    /// The one list of body field names: object keys whose values are redacted at any depth of JSON bodies, and
    /// field names in form and multipart bodies, alike; ``headerNames`` count as field names in both too.
    public var jsonFieldNames: RedactionNames
    /// Values scrubbed from every exchange wherever they appear (an app's own API key, say), in every form.
    public var secretValues: Set<String>
    /// Values shorter than this many bytes (UTF-8) are redacted where they are named but not searched for
    /// elsewhere. Default 6.
    public var minimumScrubLength: Int

    /// A policy redacting the default names plus the given ones; pass `includeDefaults: false` to start empty.
    public init(headerNames: some Sequence<String> = [String](), queryItemNames: some Sequence<String> = [String](),
                jsonFieldNames: some Sequence<String> = [String](), secretValues: Set<String> = [],
                minimumScrubLength: Int = RedactionPolicy.defaultMinimumScrubLength, includeDefaults: Bool = true) {
        self.headerNames = RedactionNames(headerNames).union(includeDefaults ? Self.defaultHeaderNames : [])
        self.queryItemNames = RedactionNames(queryItemNames).union(includeDefaults ? Self.defaultQueryItemNames : [])
        self.jsonFieldNames = RedactionNames(jsonFieldNames).union(includeDefaults ? Self.defaultFieldNames : [])
        self.secretValues = secretValues
        self.minimumScrubLength = minimumScrubLength
    }

    /// A policy that redacts nothing (for traces of test servers only).
    public static let none = RedactionPolicy(includeDefaults: false)

    /// This policy with more names redacted.
    public func adding(headers: some Sequence<String> = [String](), queryItems: some Sequence<String> = [String](),
                       fields: some Sequence<String> = [String]()) -> RedactionPolicy {
        var policy = self
        policy.headerNames.formUnion(RedactionNames(headers))
        policy.queryItemNames.formUnion(RedactionNames(queryItems))
        policy.jsonFieldNames.formUnion(RedactionNames(fields))
        return policy
    }

    /// This policy with some names no longer redacted (matched loosely, like every name here).
    public func removing(headers: some Sequence<String> = [String](), queryItems: some Sequence<String> = [String](),
                         fields: some Sequence<String> = [String]()) -> RedactionPolicy {
        var policy = self
        policy.headerNames.subtract(RedactionNames(headers))
        policy.queryItemNames.subtract(RedactionNames(queryItems))
        policy.jsonFieldNames.subtract(RedactionNames(fields))
        return policy
    }

    // MARK: Headers

    /// The headers in order, with sensitive values replaced by ``marker``.
    public func redact(headers: [TraceHeader]) -> [TraceHeader] {
        var ignored = SecretCollector(minimumLength: .max)
        return redact(headers: headers, collecting: &ignored)
    }

    /// swift-http-types fields as recorded headers, with sensitive values replaced by ``marker``.
    public func redact(headers: HTTPFields) -> [TraceHeader] {
        redact(headers: headers.map { TraceHeader(name: $0.name.rawName, value: $0.value) })
    }

    package func redact(headers: [TraceHeader], collecting secrets: inout SecretCollector) -> [TraceHeader] {
        var headers = headers
        redact(headers: &headers, collecting: &secrets)
        return headers
    }

    /// ``redact(headers:collecting:)`` in place: a list with nothing to redact (most responses') is not written to
    /// at all, and the exchange's own list, held by nothing else, is changed without a copy.
    package func redact(headers: inout [TraceHeader], collecting secrets: inout SecretCollector) {
        for index in headers.indices {
            let header = headers[index]
            guard headerNames.contains(header.name) else {
                // A `Location` or `Link` is a URL with a query of its own.
                let value = redact(headerValue: header.value, name: header.name, collecting: &secrets)
                if value != header.value { headers[index].value = value }
                continue
            }
            secrets.addHeader(name: header.name, value: header.value)
            headers[index].value = Self.marker
        }
    }

    /// What ``redact(headers:collecting:)`` collects from `headers`, without building the redacted list: for
    /// headers sent on earlier attempts, which only give values to scrub.
    package func collect(headers: [TraceHeader], into secrets: inout SecretCollector) {
        for header in headers {
            if headerNames.contains(header.name) {
                secrets.addHeader(name: header.name, value: header.value)
            } else {
                _ = redact(headerValue: header.value, name: header.name, collecting: &secrets)
            }
        }
    }

    // MARK: URLs

    /// The URL with sensitive query item values and any password replaced by ``urlMarker``.
    ///
    /// Works on the raw query text so that everything else (order, encoding, duplicates) stays exactly as sent.
    public func redact(url: String) -> String {
        var ignored = SecretCollector(minimumLength: .max)
        return redact(url: url, collecting: &ignored)
    }

    /// The URL as text with sensitive query items and any password redacted, as the `String` overload does.
    public func redact(url: URL) -> String {
        redact(url: url.absoluteString)
    }

    package func redact(url: String, collecting secrets: inout SecretCollector) -> String {
        if let unchanged = unchangedWithoutParsing(url, collecting: &secrets) {
            return redactFragmentItems(unchanged, collecting: &secrets)
        }
        return redactParsing(url: url, collecting: &secrets)
    }

    /// ``redact(url:collecting:)`` through `URLComponents`, for every URL (tests compare the two).
    package func redactParsing(url: String, collecting secrets: inout SecretCollector) -> String {
        redactFragmentItems(redactQueryParsing(url: url, collecting: &secrets), collecting: &secrets)
    }

    /// A fragment is the client's own, but an OAuth implicit grant's callback carries `#access_token=…`: its items
    /// are redacted by name as the query's are.
    private func redactFragmentItems(_ url: String, collecting secrets: inout SecretCollector) -> String {
        var scanned = url
        // Over the string's own bytes with `memchr`: the generic `firstIndex` and `contains` cost several times more a
        // byte on the UTF-8 view and still walked a byte at a time on the buffer, on every exchange's URL
        // (one search per byte looked for).
        let hasItems = scanned.withUTF8 { bytes in
            guard let base = bytes.baseAddress, let hash = memchr(base, Int32(UInt8(ascii: "#")), bytes.count) else {
                return false
            }
            let offset = UnsafeRawPointer(hash) - UnsafeRawPointer(base)
            return memchr(hash, Int32(UInt8(ascii: "=")), bytes.count - offset) != nil
        }
        guard hasItems else { return url }
        return redactURLParts(url, redirectTarget: false, collecting: &secrets)
    }

    private func redactQueryParsing(url: String, collecting secrets: inout SecretCollector) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if let password = components.percentEncodedPassword, password != Self.urlMarker {
            secrets.addEncoded(password)
            components.percentEncodedPassword = Self.urlMarker
            changed = true
        }
        if let query = components.percentEncodedQuery, !queryItemNames.isEmpty {
            let redacted = redact(formEncoded: query, names: queryItemNames, collecting: &secrets)
            if redacted != query {
                components.percentEncodedQuery = redacted
                changed = true
            }
        }
        guard changed else { return url }
        return components.string ?? url
    }

    /// `url` itself when it has no user information and its query (the text between the first `?` and the `#`,
    /// which is what `URLComponents` would give) has nothing to redact: the common case, answered without
    /// `URLComponents`, which is slow on Linux. `nil` means the full path must decide.
    private func unchangedWithoutParsing(_ url: String, collecting secrets: inout SecretCollector) -> String? {
        var scanned = url
        // The query's byte offsets, over the string's own bytes; `nil` with `@` in the URL.
        // Each byte looked for with `memchr`, not the buffer's generic `contains` and `firstIndex`.
        let found: (hasAt: Bool, query: Range<Int>?) = scanned.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return (false, nil) }
            func offset(of byte: UInt8, from start: Int) -> Int? {
                memchr(base + start, Int32(byte), bytes.count - start).map {
                    UnsafeRawPointer($0) - UnsafeRawPointer(base)
                }
            }
            guard offset(of: UInt8(ascii: "@"), from: 0) == nil else { return (true, nil) }
            guard let question = offset(of: UInt8(ascii: "?"), from: 0) else { return (false, nil) }
            return (false, (question + 1)..<(offset(of: UInt8(ascii: "#"), from: question + 1) ?? bytes.count))
        }
        guard !found.hasAt else { return nil }
        guard let range = found.query, !queryItemNames.isEmpty else { return url }
        let bytes = url.utf8
        let query = String(url[bytes.index(bytes.startIndex, offsetBy: range.lowerBound)..<bytes.index(bytes.startIndex, offsetBy: range.upperBound)])
        // Nothing is collected unless something is redacted, and then the full path starts again.
        var untouched = secrets
        return redact(formEncoded: query, names: queryItemNames, collecting: &untouched) == query ? url : nil
    }

    // MARK: Bodies

    /// The body with sensitive fields redacted when it is JSON or a form; anything else is returned unchanged.
    ///
    /// JSON is recognised by its first byte, not by trusting `contentType` (apps send JSON as `text/plain` too),
    /// and is scanned rather than parsed: only the redacted values change, every other byte stays as it was, and
    /// a body cut short or nested too deep for a parser is still redacted.
    public func redact(body: Data, contentType: String?) -> Data {
        var ignored = SecretCollector(minimumLength: .max)
        return redact(body: body, contentType: contentType, collecting: &ignored)
    }

    package func redact(body: Data, contentType: String?, collecting secrets: inout SecretCollector) -> Data {
        // An event stream's data lines, event by event, as its messages are (issue 44, item 5): then on as text.
        if let contentType, EventStreamBodyRedactor.isEventStream(contentType) {
            let named = EventStreamBodyRedactor.redact(body, names: jsonFieldNames, headerNames: headerNames, collecting: &secrets) ?? body
            return redactText(body: named, collecting: &secrets) ?? named
        }
        // A JSON body (nearly every body) is read once: whether it is JSON, its fields redacted by name, and whether
        // its text could quote a URL or a credential. Each `Data.withUnsafeBytes` of a body past 14 bytes goes
        // through Foundation's storage class under three dynamic exclusivity checks (a cost per call), and the
        // three questions made one each.
        let json: (named: [UInt8]?, mayHoldText: Bool)? = body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard !jsonFieldNames.isEmpty || !headerNames.isEmpty, JSONFieldRedactor.looksLikeJSON(bytes) else { return nil }
            // A JSON field named like a credential header (`"Authorization": "Bearer …"`) is one too.
            let named = JSONFieldRedactor.redact(bytes, names: jsonFieldNames, headerNames: headerNames, collecting: &secrets)
            let mayHoldText = named.map { $0.withUnsafeBufferPointer(Self.mayHoldURLOrScheme) } ?? Self.mayHoldURLOrScheme(bytes)
            return (named, mayHoldText)
        }
        let named = json.map { $0.named.map { Data($0) } ?? body }
            ?? redactFormOrMultipart(body: body, contentType: contentType, collecting: &secrets)
        // Then the URLs and `Bearer …` quoted anywhere in a text body; a JSON body whose bytes hold
        // none of what that looks for is answered already.
        if let json, !json.mayHoldText { return named }
        return redactText(body: named, collecting: &secrets) ?? named
    }

    /// A body that is not JSON (or a policy that names no field or header): a multipart body's parts, or a form.
    private func redactFormOrMultipart(body: Data, contentType: String?, collecting secrets: inout SecretCollector) -> Data {
        let lowered = contentType?.lowercased()
        if let lowered, lowered.contains("multipart/") {
            return MultipartRedactor.redact(body, contentType: contentType!, policy: self, collecting: &secrets) ?? body
        }
        // The same names as JSON's: a form field named like a credential header (`cookie=…`) is one too.
        let formNames = jsonFieldNames.union(headerNames)
        // A form as its type says, or a body without a type (or as text) that parses as one: `curl --data
        // 'password=…'` sends a form whatever its header says.
        let declaredForm = lowered?.contains("application/x-www-form-urlencoded") ?? false
        let untyped = lowered == nil || lowered!.isEmpty || lowered!.hasPrefix("text/plain")
        if !formNames.isEmpty, declaredForm || untyped, let text = String(data: body, encoding: .utf8),
           declaredForm || Self.parsesAsForm(text) {
            let redacted = redact(formEncoded: text, names: formNames, collecting: &secrets)
            return redacted == text ? body : Data(redacted.utf8)
        }
        return body
    }

    /// Whether `text` is `name=value` pairs joined by `&` and nothing else (no blank, no line break): how a
    /// form looks, and what free text almost never does.
    package static func parsesAsForm(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 1 << 20, text.utf8.contains(UInt8(ascii: "=")) else { return false }
        for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { return false }
            guard pair.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") }) else { return false }
        }
        return true
    }

    // MARK: Helpers

    /// Redacts `name=value` pairs of an `a=1&b=2` text, leaving every other byte as it was.
    /// A name with no `+` or `%` is its own decoded form, and text with no name redacted is returned as it came: the
    /// usual query (an import redacts every URL) costs no decoding and no rebuilding.
    ///
    /// OAuth's authorization `code` is a credential, but `code` names innocent things too: it is
    /// redacted when the same text has a `state` or `redirect_uri` beside it (an authorization response or a token
    /// request), or when the text is a redirect target's (`redirectTarget`: a `Location`).
    package func redact(formEncoded text: String, names: RedactionNames, redirectTarget: Bool = false,
                collecting secrets: inout SecretCollector) -> String {
        var changed = false
        let names = Self.withOAuthCode(names, text: text, redirectTarget: redirectTarget)
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "=") else { return pair }
            let rawName = pair[..<equals]
            let isPlain = !rawName.utf8.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }
            let name = isPlain ? String(rawName)
                : (rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawName))
            guard names.contains(name) else { return pair }
            let value = pair[pair.index(after: equals)...]
            guard value != Self.urlMarker else { return pair }
            secrets.addEncoded(value)
            changed = true
            return rawName + "=" + Self.urlMarker
        }
        return changed ? pairs.joined(separator: "&") : text
    }

    /// `names` plus `code` when `text` is an OAuth authorization response or token request (or a redirect target).
    private static func withOAuthCode(_ names: RedactionNames, text: String, redirectTarget: Bool) -> RedactionNames {
        guard !names.isEmpty, text.utf8.count >= 5, mentionsCode(text.utf8), !names.contains("code") else { return names }
        var hasCode = false, beside = redirectTarget
        for pair in text.split(separator: "&") {
            let name = RedactionNames.normalized(pair.prefix { $0 != "=" })
            if name == "code" { hasCode = true }
            if name == "state" || name == "redirecturi" { beside = true }
        }
        guard hasCode, beside else { return names }
        var widened = names
        widened.insert("code")
        return widened
    }

    /// Whether `code` (any case) occurs in the text: most queries do not, and are answered without splitting.
    private static func mentionsCode(_ utf8: String.UTF8View) -> Bool {
        let word: (UInt8, UInt8, UInt8, UInt8) = (0x63, 0x6F, 0x64, 0x65)  // c o d e
        var matched = 0
        for byte in utf8 {
            let lower = byte | 0x20
            let next = matched == 0 ? word.0 : matched == 1 ? word.1 : matched == 2 ? word.2 : word.3
            matched = lower == next ? matched + 1 : (lower == word.0 ? 1 : 0)
            if matched == 4 { return true }
        }
        return false
    }
}
