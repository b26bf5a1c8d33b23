import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// The secrets a cassette keeps out of its file by value: each is saved as its placeholder (`<TOKEN>`, or
/// `%3CTOKEN%3E` inside a URL) and put back in the responses it plays.
///
/// A value is found raw, JSON-escaped and percent-encoded. Playback puts back the value the test gives now, so a
/// recording made with a real token replays with a dummy one.
struct CassetteSecrets: Sendable {
    struct Secret: Sendable {
        var name: String
        var value: String
        /// How it is written in headers and bodies.
        var placeholder: String { "<\(name)>" }
        /// How it is written in URLs, where `<` and `>` must be percent-encoded.
        var urlPlaceholder: String { "%3C\(name)%3E" }
        /// The value as it may appear: raw, JSON-escaped, percent-encoded (each once).
        var forms: [String] {
            let escaped = String(JSONValue.quoted(value).dropFirst().dropLast())
            let encoded = RequestTarget.percentEncode(value, allowed: ASCIISet(unreservedPlus: ""))
            var forms = [value]
            for form in [escaped, encoded] where !forms.contains(form) { forms.append(form) }
            return forms
        }
    }

    /// Longest value first, so that a secret containing another is replaced whole.
    let secrets: [Secret]

    /// Checks names (letters, digits, `_`, `-`) and values: two names may not share one, and a value shorter than
    /// `minimumLength` bytes would be found inside innocent text (`/abc` in every path). Empty values are kept for
    /// playback only, since there is nothing to find.
    init(_ secrets: [String: String], minimumLength: Int, path: String) throws(CassetteError) {
        for name in secrets.keys where name.isEmpty || !name.unicodeScalars.allSatisfy(Self.isNameScalar) {
            throw CassetteError(.invalidSecret, path: path, message: """
                secret name "\(CassetteMatcher.shown(name))" cannot be a placeholder: use letters, digits, "_" and "-"
                """)
        }
        if let short = secrets.filter({ !$0.value.isEmpty && $0.value.utf8.count < minimumLength }).keys.min() {
            throw CassetteError(.invalidSecret, path: path, message: """
                secret \(short) is shorter than \(minimumLength) bytes: it would be replaced inside innocent text
                """)
        }
        let named = Dictionary(grouping: secrets.filter { !$0.value.isEmpty }, by: \.value)
        if let shared = named.values.first(where: { $0.count > 1 }) {
            throw CassetteError(.invalidSecret, path: path, message: """
                secrets \(shared.map(\.key).sorted().joined(separator: " and ")) have the same value: \
                a placeholder could not tell them apart
                """)
        }
        self.secrets = secrets.map { Secret(name: $0.key, value: $0.value) }
            .sorted { ($0.value.utf8.count, $1.name) > ($1.value.utf8.count, $0.name) }
    }

    var isEmpty: Bool { secrets.isEmpty }

    /// Every placeholder as bytes, in both spellings (for ``CassetteRedactor``).
    var placeholderBytes: [[UInt8]] {
        secrets.flatMap { [Array($0.placeholder.utf8), Array($0.urlPlaceholder.utf8)] }
    }

    // MARK: Saving

    /// The exchange with every secret value replaced by its placeholder: URL, operation, headers and bodies.
    func hide(_ exchange: TraceExchange) -> TraceExchange {
        guard !secrets.isEmpty else { return exchange }
        var exchange = exchange
        exchange.url = hide(url: exchange.url)
        exchange.operation = hide(text: exchange.operation)
        exchange.requestHeaders = exchange.requestHeaders.map { TraceHeader(name: $0.name, value: hide(text: $0.value)) }
        exchange.responseHeaders = exchange.responseHeaders.map { TraceHeader(name: $0.name, value: hide(text: $0.value)) }
        for keyPath in [\TraceExchange.requestBody, \TraceExchange.responseBody] {
            guard let body = exchange[keyPath: keyPath] else { continue }
            exchange[keyPath: keyPath]?.data = hide(data: body.data)
        }
        if let stream = exchange.stream {
            // A stream's messages like bodies, and the texts around them.
            for index in stream.messages.indices {
                exchange.stream!.messages[index].payload = hide(data: stream.messages[index].payload)
                exchange.stream!.messages[index].size = exchange.stream!.messages[index].payload.count
                exchange.stream!.messages[index].eventID = stream.messages[index].eventID.map(hide(text:))
            }
            exchange.stream!.closeReason = stream.closeReason.map(hide(text:))
        }
        return exchange
    }

    private func hide(url: String) -> String {
        secrets.reduce(url) { url, secret in
            secret.forms.filter { !$0.isEmpty }.reduce(url) { $0.replacingOccurrences(of: $1, with: secret.urlPlaceholder) }
        }
    }

    private func hide(text: String) -> String {
        secrets.reduce(text) { text, secret in
            secret.forms.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: secret.placeholder) }
        }
    }

    private func hide(data: Data) -> Data {
        var bytes = [UInt8](data)
        for secret in secrets {
            for form in secret.forms where !form.isEmpty {
                bytes = CassetteBytes.replacing(Array(form.utf8), with: Array(secret.placeholder.utf8), in: bytes)
            }
        }
        return Data(bytes)
    }

    // MARK: Playing

    /// The response with every placeholder replaced by the secret's value (percent-encoded in the URL spelling).
    /// `Content-Length`, when present, is corrected for the body as returned.
    func restore(_ response: RawResponse) -> RawResponse {
        guard !secrets.isEmpty else { return response }
        var response = response
        var bytes = [UInt8](response.body)
        var fields = response.head.headerFields
        for secret in secrets {
            let encoded = RequestTarget.percentEncode(secret.value, allowed: ASCIISet(unreservedPlus: ""))
            for (placeholder, value) in [(secret.placeholder, secret.value), (secret.urlPlaceholder, encoded)] {
                bytes = CassetteBytes.replacing(Array(placeholder.utf8), with: Array(value.utf8), in: bytes)
                for index in fields.indices where fields[index].value.contains(placeholder) {
                    fields[index].value = fields[index].value.replacingOccurrences(of: placeholder, with: value)
                }
            }
        }
        if fields[.contentLength] != nil { fields[.contentLength] = String(bytes.count) }
        response.head.headerFields = fields
        response.body = Data(bytes)
        return response
    }

    /// A stream message's payload with every placeholder replaced by the secret's value.
    func restore(data: Data) -> Data {
        guard !secrets.isEmpty else { return data }
        var bytes = [UInt8](data)
        for secret in secrets {
            bytes = CassetteBytes.replacing(Array(secret.placeholder.utf8), with: Array(secret.value.utf8), in: bytes)
        }
        return Data(bytes)
    }

    /// A text (an event ID, a close reason) with every placeholder replaced by the secret's value.
    func restore(text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1.placeholder, with: $1.value) }
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }
}

/// Byte-string replacement (Foundation has none for `Data` on every platform).
enum CassetteBytes {
    /// `bytes` with every non-overlapping occurrence of `target`, left to right, replaced by `replacement`.
    static func replacing(_ target: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !target.isEmpty, bytes.count >= target.count else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        var changed = false
        while index < bytes.count {
            if bytes[index] == target[0], bytes.count - index >= target.count,
               bytes[index..<(index + target.count)].elementsEqual(target) {
                result.append(contentsOf: replacement)
                index += target.count
                changed = true
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return changed ? result : bytes
    }
}
