import Foundation
import LoupeTrace

/// Redacts a HAR file as it is, entry by entry, with a ``RedactionPolicy``: what `loupe redact FILE.har` does.
///
/// The file is edited as JSON rather than imported and exported again, so fields Loupe does not model (pages,
/// timings, a browser's own `_` fields) are kept. It is streamed: ``JSONStream`` reads it a
/// window at a time, one entry is parsed at a time, and each is written out as soon as it is redacted (as it was,
/// byte for byte, when nothing in it changed), so memory is one entry and a read window whatever the file's size.
/// The members beside `log.entries` (pages, creator, anything else) are held until the entries are done and
/// written after them, scrubbed of every entry's values (a JSON object's members have no order).
///
/// In each entry, by name: the request URL and `queryString`, request and response `headers`, `cookies` (when
/// `Cookie`/`Set-Cookie` are redacted), `postData` text and `params`, the response `content` text (decoded first
/// when base64) and `redirectURL` (a redirect target: its OAuth `code` too); then every other string of the entry
/// (`comment`, `_initiator.url`, a `Location` header) for the URLs and `Bearer …` credentials it quotes. Then by
/// value: the values removed there (and the credentials inside redacted headers) are scrubbed from every string
/// of the entry, `_loupe` included, as ``RedactionPolicy/redact(exchange:alsoSent:)`` does for a recorded
/// exchange.
package enum HARRedactor {
    /// The outcome of a redaction.
    package struct Result: Sendable {
        /// The redacted document (the input's bytes when nothing changed); empty from the streamed form, which
        /// hands its output to a callback instead.
        package var data: Data
        /// Entries in the document.
        package var entryCount: Int
        /// Entries that changed.
        package var changedEntries: Int
        /// Whether anything in the document changed.
        package var changed: Bool
    }

    /// Why a file could not be redacted.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The redacted document in memory (tests, small files).
    package static func redact(_ data: Data, policy: RedactionPolicy) throws -> Result {
        var output = Data()
        var result = try redact(.bytes(data), policy: policy) { output.append($0) }
        result.data = result.changed ? output : data
        return result
    }

    /// The redacted document of `file`, handed to `write` in pieces; `Result.data` is empty. When
    /// `Result.changed` is false what was written is not the file's bytes and should be thrown away.
    package static func redact(file: FileHandle, policy: RedactionPolicy, write: (Data) throws -> Void) throws -> Result {
        try redact(.file(file), policy: policy, write: write)
    }

    static func redact(_ source: JSONStream.Source, policy: RedactionPolicy, write: (Data) throws -> Void) throws -> Result {
        // The walker keeps `write` only while it runs.
        try withoutActuallyEscaping(write) { write in
            var walker = Walker(json: JSONStream(source), policy: policy, write: write)
            do {
                try walker.run()
            } catch let error as HARImportError {
                throw Failure(description: "not a HAR file: \(error.message)")
            }
            return Result(data: Data(), entryCount: walker.entryCount, changedEntries: walker.changedEntries,
                          changed: walker.changedEntries > 0 || walker.outsideChanged)
        }
    }

    /// One pass over the document: `{"log": {"entries": [ … ] …} …}`, written as it is read.
    private struct Walker {
        var json: JSONStream
        let policy: RedactionPolicy
        let write: (Data) throws -> Void
        var entryCount = 0
        var changedEntries = 0
        var outsideChanged = false
        /// Every entry's secrets, for the members outside the entries.
        var all: SecretCollector
        /// Members of `log` and of the top level other than `log.entries`, as raw key and value bytes.
        var logMembers: [(key: Data, value: Data)] = []
        var topMembers: [(key: Data, value: Data)] = []
        var sawEntries = false
        /// Output not yet handed to `write` (pieces of about a megabyte).
        var pending = Data()

        init(json: JSONStream, policy: RedactionPolicy, write: @escaping (Data) throws -> Void) {
            self.json = json
            self.policy = policy
            self.write = write
            all = SecretCollector(minimumLength: policy.minimumScrubLength)
        }

        mutating func run() throws {
            let hasByteOrderMark = try json.ensure(3) >= 3 && json.window[0...2].elementsEqual([0xEF, 0xBB, 0xBF])
            if hasByteOrderMark { json.advance(by: 3) }
            guard try json.skipWhitespace() == UInt8(ascii: "{") else {
                throw Failure(description: "not a HAR file: the top level is not a JSON object")
            }
            var sawLog = false
            try members { walker, key, keyBytes in
                if key == "log", !sawLog, try walker.json.nextToken() == UInt8(ascii: "{") {
                    sawLog = true
                    try walker.readLog()
                } else {
                    walker.topMembers.append((keyBytes, try walker.captureValue()))
                }
            }
            if try json.skipWhitespace() != nil { throw json.malformed("invalid value") }
            guard sawEntries else { throw Failure(description: "not a HAR file: it has no log.entries list") }
            emit("]")
            for (key, value) in logMembers { emit(","); pending.append(key); emit(":"); pending.append(scrubbed(value)) }
            emit("}")
            for (key, value) in topMembers { emit(","); pending.append(key); emit(":"); pending.append(scrubbed(value)) }
            emit("}")
            try flush(force: true)
        }

        /// Calls `member` with each key (decoded when short) and its raw bytes, the value next.
        private mutating func members(_ member: (inout Walker, String?, Data) throws -> Void) throws {
            try json.open()
            if try json.nextToken() == UInt8(ascii: "}") {
                json.advance()
                json.depth -= 1
                return
            }
            repeat {
                guard try json.nextToken() == JSONStream.quote else { throw json.malformed("invalid value") }
                json.beginCapture()
                try json.skipString(validatingUTF8: true)
                let keyBytes = json.endCapture()
                guard try json.nextToken() == UInt8(ascii: ":") else { throw json.malformed("invalid value") }
                json.advance()
                let key = keyBytes.count <= 64 ? try? JSONDecoder().decode(String.self, from: keyBytes) : nil
                try member(&self, key, keyBytes)
            } while try !json.nextAfterMember(isObject: true, skippingKey: false)
        }

        private mutating func captureValue() throws -> Data {
            _ = try json.nextToken()
            json.beginCapture()
            try json.skipValue()
            return json.endCapture()
        }

        private mutating func readLog() throws {
            try members { walker, key, keyBytes in
                guard key == "entries", !walker.sawEntries else {
                    walker.logMembers.append((keyBytes, try walker.captureValue()))
                    return
                }
                guard try walker.json.nextToken() == UInt8(ascii: "[") else {
                    throw Failure(description: "not a HAR file: log.entries is not a list")
                }
                walker.sawEntries = true
                try walker.readEntries()
            }
        }

        private mutating func readEntries() throws {
            emit(#"{"log":{"entries":["#)
            try json.open()
            if try json.nextToken() == UInt8(ascii: "]") {
                json.advance()
                json.depth -= 1
                return
            }
            repeat {
                let bytes = try captureValue()
                if entryCount > 0 { emit(",") }
                pending.append(try redactEntry(bytes))
                entryCount += 1
                try flush(force: false)
            } while try !json.nextAfterMember(isObject: false, skippingKey: false)
        }

        private mutating func redactEntry(_ bytes: Data) throws -> Data {
            guard var entry = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] else { return bytes }
            var editor = Editor(policy: policy)
            editor.redactByName(&entry)
            editor.scrubByValue(&entry)
            for value in editor.secrets.values { all.add(value) }
            guard editor.changed else { return bytes }
            changedEntries += 1
            return try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes])
        }

        /// A member outside the entries, scrubbed of every entry's values.
        private mutating func scrubbed(_ bytes: Data) -> Data {
            guard !all.isEmpty || !policy.secretValues.isEmpty,
                  var value = try? JSONSerialization.jsonObject(with: bytes, options: .fragmentsAllowed) else { return bytes }
            var outside = Editor(policy: policy)
            for secret in all.values { outside.secrets.add(secret) }
            outside.scrubStrings(in: &value, key: nil)
            guard outside.changed,
                  let data = try? JSONSerialization.data(
                      withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
            else { return bytes }
            outsideChanged = true
            return data
        }

        private mutating func emit(_ text: String) { pending.append(contentsOf: text.utf8) }

        private mutating func flush(force: Bool) throws {
            guard force || pending.count >= 1 << 20 else { return }
            try write(pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Redacts one entry (or, for `outside`, scrubs other strings) and remembers whether anything changed.
    private struct Editor {
        let policy: RedactionPolicy
        var secrets: SecretCollector
        var urls: [Scrubber] = []
        var changed = false
        private var scrubber: ValueScrubber?

        init(policy: RedactionPolicy) {
            self.policy = policy
            secrets = SecretCollector(minimumLength: policy.minimumScrubLength)
            for value in policy.secretValues { secrets.add(value) }
        }

        // MARK: By name

        mutating func redactByName(_ entry: inout [String: Any]) {
            if var request = entry["request"] as? [String: Any] {
                if let url = request["url"] as? String {
                    let redacted = policy.redact(url: url, collecting: &secrets)
                    urls.append(Scrubber(url: url, redactedURL: redacted))
                    set(&request, "url", redacted, was: url)
                }
                redactPairs(&request, "headers", names: policy.headerNames, header: true)
                redactPairs(&request, "queryString", names: Self.withOAuthCode(policy.queryItemNames, request["queryString"]), header: false)
                if policy.headerNames.contains("cookie") {
                    redactPairs(&request, "cookies", names: nil, header: false)
                }
                if var postData = request["postData"] as? [String: Any] {
                    redactBody(&postData)
                    redactPairs(&postData, "params", names: Self.withOAuthCode(
                        policy.jsonFieldNames.union(policy.headerNames), postData["params"]), header: false)
                    request["postData"] = postData
                }
                entry["request"] = request
            }
            if var response = entry["response"] as? [String: Any] {
                redactPairs(&response, "headers", names: policy.headerNames, header: true)
                if policy.headerNames.contains("set-cookie") {
                    redactPairs(&response, "cookies", names: nil, header: false)
                }
                if var content = response["content"] as? [String: Any] {
                    redactBody(&content)
                    response["content"] = content
                }
                if let target = response["redirectURL"] as? String, !target.isEmpty {
                    let redacted = policy.redactURLParts(target, redirectTarget: true, collecting: &secrets)
                    set(&response, "redirectURL", redacted, was: target)
                }
                entry["response"] = response
            }
            // Every other string: the URLs and credentials it quotes (a `Location` header, `comment`,
            // `_initiator.url`, a note in `_loupe`).
            var value: Any = entry
            redactQuoted(in: &value)
            entry = value as? [String: Any] ?? entry
        }

        /// `names` plus `code` when the `{name, value}` list also has a `state` or `redirect_uri` (an OAuth
        /// authorization response or token request).
        private static func withOAuthCode(_ names: RedactionNames, _ pairs: Any?) -> RedactionNames {
            guard let pairs = pairs as? [[String: Any]] else { return names }
            let present = Set(pairs.compactMap { ($0["name"] as? String).map(RedactionNames.normalized) })
            guard present.contains("code"), present.contains("state") || present.contains("redirecturi") else { return names }
            return names.union(["code"])
        }

        /// Redacts by name inside every string: URLs (with ``RedactionPolicy/urlMarker``) and auth-scheme
        /// credentials; a header's value as a header value (a relative `Location` too). Body texts were redacted
        /// as bodies already.
        private mutating func redactQuoted(in value: inout Any, header: String? = nil) {
            switch value {
            case let text as String:
                let redacted = header.map { policy.redact(headerValue: text, name: $0, collecting: &secrets) }
                    ?? policy.redact(text: text, collecting: &secrets)
                if redacted != text {
                    value = redacted
                    changed = true
                }
            case var object as [String: Any]:
                let isBody = object["mimeType"] != nil
                let headerName = object["name"] as? String
                for (member, child) in object where !(isBody && member == "text") {
                    var child = child
                    redactQuoted(in: &child, header: member == "value" ? headerName : nil)
                    object[member] = child
                }
                value = object
            case var array as [Any]:
                for index in array.indices { redactQuoted(in: &array[index]) }
                value = array
            default:
                break
            }
        }

        /// Redacts `{name, value}` objects whose name is in `names` (every one when `names` is `nil`).
        private mutating func redactPairs(_ object: inout [String: Any], _ key: String, names: RedactionNames?, header: Bool) {
            guard var pairs = object[key] as? [Any] else { return }
            for index in pairs.indices {
                guard var pair = pairs[index] as? [String: Any], let name = pair["name"] as? String,
                      let value = pair["value"] as? String, names?.contains(name) ?? true,
                      value != RedactionPolicy.marker else { continue }
                if header { secrets.addHeader(name: name, value: value) } else { secrets.addEncoded(value) }
                pair["value"] = RedactionPolicy.marker
                pairs[index] = pair
                changed = true
            }
            object[key] = pairs
        }

        /// Redacts a `postData` or `content` object's `text` by name (decoding base64 first).
        private mutating func redactBody(_ body: inout [String: Any]) {
            guard let text = body["text"] as? String else { return }
            let isBase64 = (body["encoding"] as? String)?.lowercased() == "base64"
            guard let data = isBase64 ? Data(base64Encoded: text, options: .ignoreUnknownCharacters) : Data(text.utf8)
            else { return }
            let redacted = policy.redact(body: data, contentType: body["mimeType"] as? String, collecting: &secrets)
            guard redacted != data else { return }
            body["text"] = isBase64 ? redacted.base64EncodedString() : String(decoding: redacted, as: UTF8.self)
            changed = true
        }

        // MARK: By value

        mutating func scrubByValue(_ entry: inout [String: Any]) {
            var value: Any = entry
            scrubStrings(in: &value, key: nil)
            entry = value as? [String: Any] ?? entry
        }

        /// Scrubs every string inside `value`: URLs with the URL marker, base64 body texts as bytes.
        mutating func scrubStrings(in value: inout Any, key: String?) {
            if scrubber == nil, !secrets.isEmpty {
                scrubber = ValueScrubber(values: secrets.values, minimumLength: secrets.minimumLength)
            }
            switch value {
            case let text as String:
                let isURL = key == "url" || key == "redirectURL"
                var scrubbed = isURL ? text : urls.reduce(text) { $1($0) }
                if let scrubber { scrubbed = scrubber.scrub(scrubbed, marker: isURL ? RedactionPolicy.urlMarker : RedactionPolicy.marker) }
                if scrubbed != text {
                    value = scrubbed
                    changed = true
                }
            case var object as [String: Any]:
                let isBase64 = (object["encoding"] as? String)?.lowercased() == "base64"
                for (member, child) in object {
                    var child = child
                    if isBase64, member == "text", let text = child as? String,
                       let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                        if let scrubbed = scrubber?.scrub(data) {
                            child = scrubbed.base64EncodedString()
                            changed = true
                        }
                    } else {
                        scrubStrings(in: &child, key: member)
                    }
                    object[member] = child
                }
                value = object
            case var array as [Any]:
                for index in array.indices { scrubStrings(in: &array[index], key: nil) }
                value = array
            default:
                break
            }
        }

        private mutating func set(_ object: inout [String: Any], _ key: String, _ value: String, was old: String) {
            guard value != old else { return }
            object[key] = value
            changed = true
        }
    }
}
