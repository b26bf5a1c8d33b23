import Foundation

/// Redaction by name inside free text: URLs quoted in a body, an error, a header value or a HAR comment, and
/// credentials after an auth scheme (`Bearer …`, `Basic …`) written out in text.
///
/// A URL is found by its `scheme://` (also JSON-escaped, `scheme:\/\/`) and runs to the first blank, quote,
/// bracket or backslash that is not part of a `\/`; its password, its query items and its fragment's items
/// (an OAuth implicit grant returns `#access_token=…`) are redacted by name as the exchange's own URL is, with
/// ``RedactionPolicy/urlMarker``. Whatever is redacted is collected, so the recorder then scrubs it by value from
/// everything else.
package extension RedactionPolicy {
    /// `text` with the secrets in the URLs and auth-scheme credentials it quotes redacted by name.
    ///
    /// ```swift
    /// RedactionPolicy().redact(text: "GET https://x/cb?access_token=abc failed")
    /// // "GET https://x/cb?access_token=%5BREDACTED%5D failed"
    /// ```
    func redact(text: String) -> String {
        var ignored = SecretCollector(minimumLength: .max)
        return redact(text: text, collecting: &ignored)
    }

    /// A line about a request to `url` (an error, a progress note) made fit to print: the URL wherever it is quoted
    /// replaced by its redacted form, every other URL and auth-scheme credential redacted by name, and the secret
    /// values found in all of them (the URL's password and tokens) scrubbed by value in all their encodings. The
    /// CLI passes every line it prints about a request through here, as the recorder does what it stores.
    func redact(text: String, about url: String) -> String {
        var secrets = SecretCollector(minimumLength: minimumScrubLength)
        for value in secretValues { secrets.add(value) }
        let redactedURL = redact(url: url, collecting: &secrets)
        let named = redact(text: Scrubber(url: url, redactedURL: redactedURL)(text), collecting: &secrets)
        guard let scrubber = ValueScrubberCache.scrubber(values: secrets.list, minimumLength: secrets.minimumLength)
        else { return named }
        return scrubber.scrub(named)
    }

    func redact(text: String, collecting secrets: inout SecretCollector) -> String {
        let marks = TextMarks(text)
        guard marks.question || marks.scheme || marks.authScheme else { return text }
        let urls = redactURLs(inText: text, redirectTarget: false, collecting: &secrets)
        return redactAuthSchemes(inText: urls, collecting: &secrets)
    }

    /// A header value that was not redacted by name: URLs in it redacted (a `Location`, `Content-Location` or
    /// `Refresh` target is a redirect target: its OAuth `code` is a credential), and a relative `Location` too.
    func redact(headerValue value: String, name: String, collecting secrets: inout SecretCollector) -> String {
        // One pass over the string's own bytes answers every question below: nearly every
        // header of every exchange has none of it.
        let marks = TextMarks(value)
        guard marks.question || marks.hash || marks.at || marks.authScheme else { return value }
        let normalized = RedactionNames.normalized(name)
        let isTarget = normalized == "location" || normalized == "contentlocation" || normalized == "refresh"
        if marks.scheme {
            return redactAuthSchemes(inText: redactURLs(inText: value, redirectTarget: isTarget, collecting: &secrets),
                                     collecting: &secrets)
        }
        if isTarget, marks.question || marks.hash {
            return redactURLTail(value, redirectTarget: true, collecting: &secrets)
        }
        return redactAuthSchemes(inText: value, collecting: &secrets)
    }

    /// A body as text: the URLs and auth-scheme credentials in it redacted; `nil` when nothing changed or the body
    /// is not UTF-8.
    func redactText(body: Data, collecting secrets: inout SecretCollector) -> Data? {
        guard Self.mayHoldURLOrScheme(body), let text = String(data: body, encoding: .utf8) else { return nil }
        let redacted = redact(text: text, collecting: &secrets)
        return redacted == text ? nil : Data(redacted.utf8)
    }

    // MARK: URLs in text

    static func containsScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { schemeSeparator(in: $0, from: 0) != nil }
    }

    /// The index of the next `://` or `:\/\/` at or after `start`.
    ///
    /// From one `:` to the next with `memchr`: a JSON body has a `:` after every key, and walking the bytes between
    /// them one at a time was most of what asking a body for a URL cost.
    fileprivate static func schemeSeparator(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index + 2 < bytes.count {
            guard let found = memchr(base + index, Int32(UInt8(ascii: ":")), bytes.count - 2 - index) else { return nil }
            index = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") { return index }
            if index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "/"),
               bytes[index + 3] == UInt8(ascii: "\\"), bytes[index + 4] == UInt8(ascii: "/") { return index }
            index += 1
        }
        return nil
    }

    /// Whether the body has a `://`, a `?` or the letters of `bearer `/`basic ` in it (a cheap test before
    /// decoding it).
    private static func mayHoldURLOrScheme(_ body: Data) -> Bool {
        body.withUnsafeBytes { raw in mayHoldURLOrScheme(raw.bindMemory(to: UInt8.self)) }
    }

    /// ``mayHoldURLOrScheme(_:)`` on bytes already at hand.
    static func mayHoldURLOrScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let marks = TextMarks(bytes)
        return marks.question || marks.scheme || marks.authScheme
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isLetter(byte) || ASCIIBytes.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// Where a URL quoted in text stops.
    private static func endsURL(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"), UInt8(ascii: "^"):
            return true
        default:
            return false
        }
    }

    private func redactURLs(inText text: String, redirectTarget: Bool, collecting secrets: inout SecretCollector) -> String {
        var copy = text
        let pieces: [(Range<Int>, String)] = copy.withUTF8 { bytes in
            var found: [(Range<Int>, String)] = []
            var from = 0
            while let separator = Self.schemeSeparator(in: bytes, from: from) {
                var start = separator
                while start > 0, Self.isSchemeByte(bytes[start - 1]) { start -= 1 }
                var end = separator + 1
                while end < bytes.count, !Self.endsURL(bytes[end]) {
                    if bytes[end] == UInt8(ascii: "\\") {
                        // Only the escaped slash of JSON text continues a URL.
                        guard end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") else { break }
                        end += 2
                        continue
                    }
                    end += 1
                }
                from = max(end, separator + 3)
                guard start < separator, ASCIIBytes.isLetter(bytes[start]) else { continue }
                let url = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                found.append((start..<end, url))
            }
            // A path with a query quoted without its scheme (`/cb?access_token=…`, a server echoing the request
            // line): from the `?` to the end of the run, outside the URLs above.
            var question = 0
            var urls = found.makeIterator()
            var next = urls.next()
            while question < bytes.count {
                if let range = next?.0, question >= range.lowerBound {
                    question = max(question, range.upperBound)
                    next = urls.next()
                    continue
                }
                guard bytes[question] == UInt8(ascii: "?"), question > 0, !Self.endsURL(bytes[question - 1]) else {
                    question += 1
                    continue
                }
                var end = question + 1
                while end < bytes.count, !Self.endsURL(bytes[end]), bytes[end] != UInt8(ascii: "\\") { end += 1 }
                if let range = next?.0, end > range.lowerBound { end = range.lowerBound }
                if bytes[question..<end].contains(UInt8(ascii: "=")) {
                    found.append((question..<end, String(decoding: UnsafeBufferPointer(rebasing: bytes[question..<end]), as: UTF8.self)))
                }
                question = end
            }
            return found.sorted { $0.0.lowerBound < $1.0.lowerBound }
        }
        guard !pieces.isEmpty else { return text }
        var result = ""
        var copied = 0
        let utf8 = Array(text.utf8)
        for (range, url) in pieces {
            let escapedSlashes = url.contains("\\/")
            let plain = escapedSlashes ? url.replacingOccurrences(of: "\\/", with: "/") : url
            var redacted = redactURLParts(plain, redirectTarget: redirectTarget, collecting: &secrets)
            if redacted == plain { continue }
            if escapedSlashes { redacted = redacted.replacingOccurrences(of: "/", with: "\\/") }
            result += String(decoding: utf8[copied..<range.lowerBound], as: UTF8.self) + redacted
            copied = range.upperBound
        }
        guard copied > 0 else { return text }
        return result + String(decoding: utf8[copied...], as: UTF8.self)
    }

    /// An absolute URL's password, query and fragment redacted on its raw text (no parsing: a URL quoted in
    /// text may be one `URLComponents` refuses).
    func redactURLParts(_ url: String, redirectTarget: Bool, collecting secrets: inout SecretCollector) -> String {
        guard let separator = url.range(of: "://") else { return redactURLTail(url, redirectTarget: redirectTarget, collecting: &secrets) }
        let authorityStart = separator.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        var authority = String(url[authorityStart..<authorityEnd])
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            let password = authority[authority.index(after: colon)..<at]
            if password != Self.urlMarker, !password.isEmpty {
                secrets.addEncoded(password)
                authority = String(authority[...colon]) + Self.urlMarker + String(authority[at...])
            }
        } else if let at = authority.lastIndex(of: "@"), authority[..<at].utf8.count >= 16 {
            // A long user name and no password is a token given as the user (`https://ghp_…@github.com`), as
            // Git hosts and registries take them; a short one (`git@`, `ada@`) is a name.
            let user = authority[..<at]
            secrets.addEncoded(user)
            authority = Self.urlMarker + String(authority[at...])
        }
        let tail = redactURLTail(String(url[authorityEnd...]), redirectTarget: redirectTarget, collecting: &secrets)
        return String(url[..<authorityStart]) + authority + tail
    }

    /// A path with its query and fragment (`/cb?code=…#access_token=…`): both redacted as form text by name.
    func redactURLTail(_ tail: String, redirectTarget: Bool, collecting secrets: inout SecretCollector) -> String {
        let hash = tail.firstIndex(of: "#")
        var head = String(tail[..<(hash ?? tail.endIndex)])
        if let question = head.firstIndex(of: "?") {
            let query = String(head[head.index(after: question)...])
            head = String(head[...question]) + redact(formEncoded: query, names: queryItemNames, redirectTarget: redirectTarget,
                                               collecting: &secrets)
        }
        guard let hash else { return head }
        let fragment = String(tail[tail.index(after: hash)...])
        guard fragment.contains("=") else { return head + "#" + fragment }
        return head + "#" + redact(formEncoded: fragment, names: queryItemNames, redirectTarget: redirectTarget,
                                   collecting: &secrets)
    }

    // MARK: Auth schemes in text

    /// The index of the next `bearer ` or `basic ` (any case) at or after `start`, past the blank.
    fileprivate static func authScheme(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (start: Int, credentials: Int, isBasic: Bool)? {
        var index = start
        while index + 6 < bytes.count {
            let byte = bytes[index] | 0x20
            if byte == UInt8(ascii: "b"), index == 0 || !ASCIIBytes.isLetter(bytes[index - 1]) {
                // The two words as static bytes, tried one after the other: a list of them made at every `b` was an
                // allocation each (a trace id's hex digits hold several).
                if let credentials = Self.credentials(after: "bearer", in: bytes, at: index) {
                    return (index, credentials, false)
                }
                if let credentials = Self.credentials(after: "basic", in: bytes, at: index) {
                    return (index, credentials, true)
                }
            }
            index += 1
        }
        return nil
    }

    /// Whether ``authScheme(in:from:)`` finds one, answered from the blanks: a match at `p` has its blank at
    /// `p + 6` (`bearer`) or `p + 5` (`basic`), so only those two positions before each blank are tried, and a text
    /// with no blank after `start` (a trace id, a token, a URL) is passed over eight bytes a step. The matcher walked
    /// every byte after the first `b`, and a trace id's hex digits hold several.
    static func hasAuthScheme(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var blank = start
        while let found = nextBlank(in: bytes, from: blank) {
            // The two words tried one after the other, as static bytes (no list of them is made).
            func matches(_ word: StaticString) -> Bool {
                let position = found - word.utf8CodeUnitCount
                return position >= start && position + 6 < bytes.count
                    && (position == 0 || !ASCIIBytes.isLetter(bytes[position - 1])) && isWord(word, in: bytes, at: position)
            }
            if matches("bearer") || matches("basic") { return true }
            blank = found + 1
        }
        return false
    }

    /// The index of the next space or tab at or after `start`: eight bytes a step while a word holds neither.
    private static func nextBlank(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            while index + 8 <= bytes.count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if TextMarks.hasZeroByte(word ^ TextMarks.repeated(0x20)) || TextMarks.hasZeroByte(word ^ TextMarks.repeated(0x09)) {
                    break
                }
                index += 8
            }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { return index }
            index += 1
        }
        return nil
    }

    /// Where the credentials start when `word` (lowercase letters, in any case) and a blank are at `index`.
    private static func credentials(after word: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let length = word.utf8CodeUnitCount
        guard index + length < bytes.count, isWord(word, in: bytes, at: index),
              bytes[index + length] == UInt8(ascii: " ") || bytes[index + length] == UInt8(ascii: "\t")
        else { return nil }
        var credentials = index + length
        while credentials < bytes.count, bytes[credentials] == UInt8(ascii: " ") || bytes[credentials] == UInt8(ascii: "\t") {
            credentials += 1
        }
        return credentials
    }

    /// Whether `word` (lowercase letters) is at `index`, in any case; the caller checked there is room.
    private static func isWord(_ word: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let letters = word.utf8Start
        for offset in 0..<word.utf8CodeUnitCount where bytes[index + offset] | 0x20 != letters[offset] { return false }
        return true
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isLetter(byte) || ASCIIBytes.isDigit(byte)
            || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
                UInt8(ascii: "/"), UInt8(ascii: "=")].contains(byte)
    }

    /// `Bearer t`/`Basic b64` written in text: the credential (token68, RFC 9110 11.2, at least
    /// ``minimumScrubLength`` long, so "basic usage" stays) replaced with ``marker`` and collected.
    static func hasAuthScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { authScheme(in: $0, from: 0) != nil }
    }

    private func redactAuthSchemes(inText text: String, collecting secrets: inout SecretCollector) -> String {
        // A policy that redacts no header (``none``) leaves credentials written in text alone too.
        guard !headerNames.isEmpty, Self.hasAuthScheme(text) else { return text }
        let utf8 = Array(text.utf8)
        var result: [UInt8] = []
        var copied = 0
        var from = 0
        utf8.withUnsafeBufferPointer { bytes in
            while let found = Self.authScheme(in: bytes, from: from) {
                var end = found.credentials
                while end < bytes.count, Self.isTokenByte(bytes[end]) { end += 1 }
                from = max(end, found.start + 1)
                let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[found.credentials..<end]), as: UTF8.self)
                guard token.utf8.count >= max(minimumScrubLength, 8), token.contains(where: { $0.isNumber || $0.isUppercase })
                else { continue }
                secrets.addHeader(name: "Authorization",
                                  value: (found.isBasic ? "Basic " : "Bearer ") + token)
                result.append(contentsOf: bytes[copied..<found.credentials])
                result.append(contentsOf: Self.marker.utf8)
                copied = end
            }
        }
        guard copied > 0 else { return text }
        result.append(contentsOf: utf8[copied...])
        return String(decoding: result, as: UTF8.self)
    }
}

/// What redaction by name in free text looks for in a text, found in one pass over its bytes: a `?`, `#` or `@`, a
/// scheme separator (`://`, `:\/\/`) and an auth scheme (`Bearer `, `Basic `), each answered exactly as
/// ``RedactionPolicy/containsScheme(_:)`` and ``RedactionPolicy/hasAuthScheme(_:)`` answer it.
///
/// Every header value, error, note, event text and body of every exchange is asked these questions, and nearly
/// none holds any of it: the scan skips eight bytes at a time while none of them is one of the six that can start an
/// answer (`#`, `:`, `?`, `@`, `B`, `b`), and only at a `:` or a `b` runs the exact matcher from there, at most once
/// each (a matcher that finds nothing after a byte finds nothing after any later one). Three generic `contains`
/// passes and two matchers, each reading every byte, before.
struct TextMarks: Equatable {
    var question = false
    var hash = false
    var at = false
    /// `://` or `:\/\/` somewhere.
    var scheme = false
    /// `bearer ` or `basic ` (any case) at the start of a word, as ``RedactionPolicy/hasAuthScheme(_:)`` finds them.
    var authScheme = false

    init(_ text: String) {
        var text = text
        self = text.withUTF8 { TextMarks($0) }
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var schemeChecked = false, authChecked = false
        var index = 0
        // Eight bytes a step while none of them can start an answer (the SWAR test of Hacker's Delight 6-1, as
        // `JSONByteScan` uses): with 0x20 set in every byte, the six bytes become five values (`@` 0x60, `B` and `b`
        // 0x62, the others as they are), and a word holding none of the five holds none of the six. A word that may
        // is read byte by byte below.
        if bytes.count >= 8, let base = UnsafeRawPointer(bytes.baseAddress) {
            while index + 8 <= bytes.count {
                // Only the bytes whose question is still open are looked for: a JSON body's `:`s, once the scheme
                // matcher has run, or a trace id's `b`s, once the auth-scheme one has, no longer stop the scan. With
                // every question answered, nothing further can change the answer.
                if question, hash, at, schemeChecked, authChecked { return }
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) | Self.repeated(0x20)
                let open = (!hash && Self.hasZeroByte(word ^ Self.repeated(0x23)))
                    || (!schemeChecked && Self.hasZeroByte(word ^ Self.repeated(0x3A)))
                    || (!question && Self.hasZeroByte(word ^ Self.repeated(0x3F)))
                    || (!at && Self.hasZeroByte(word ^ Self.repeated(0x60)))
                    || (!authChecked && Self.hasZeroByte(word ^ Self.repeated(0x62)))
                if open {
                    for position in index..<(index + 8) { mark(bytes, position, &schemeChecked, &authChecked) }
                }
                index += 8
            }
        }
        while index < bytes.count {
            mark(bytes, index, &schemeChecked, &authChecked)
            index += 1
        }
    }

    /// Notes what the byte at `index` starts, if anything.
    private mutating func mark(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, _ schemeChecked: inout Bool,
                               _ authChecked: inout Bool) {
        switch bytes[index] {
        case UInt8(ascii: "?"): question = true
        case UInt8(ascii: "#"): hash = true
        case UInt8(ascii: "@"): at = true
        case UInt8(ascii: ":"):
            guard !schemeChecked else { return }
            schemeChecked = true
            scheme = RedactionPolicy.schemeSeparator(in: bytes, from: index) != nil
        case UInt8(ascii: "B"), UInt8(ascii: "b"):
            guard !authChecked else { return }
            authChecked = true
            authScheme = RedactionPolicy.hasAuthScheme(in: bytes, from: index)
        default:
            return
        }
    }

    static func repeated(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// Whether some byte of `word` is zero (exact: a borrow only flags bytes above a zero one).
    static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
    }
}
