import Foundation

/// Redacts a HAR file as it is, entry by entry, with a ``RedactionPolicy``: what `loupe redact FILE.har` does.
///
/// The file is edited as JSON rather than imported and exported again, so fields Loupe does not model (pages,
/// timings, a browser's own `_` fields) are kept. In each entry, by name: the request URL and `queryString`,
/// request and response `headers`, `cookies` (when `Cookie`/`Set-Cookie` are redacted), `postData` text and
/// `params`, and the response `content` text (decoded first when base64). Then by value: the values removed
/// there (and the credentials inside redacted headers) are scrubbed from every string of the entry, `_loupe`
/// included, as ``RedactionPolicy/redact(exchange:alsoSent:)`` does for a recorded exchange; strings outside
/// the entries (page titles) are scrubbed of every entry's values.
package enum HARRedactor {
    /// The outcome of a redaction.
    package struct Result: Sendable {
        /// The redacted document (the input's bytes when nothing changed).
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

    package static func redact(_ data: Data, policy: RedactionPolicy) throws -> Result {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Failure(description: "not a HAR file: it is not valid JSON")
        }
        guard var document = parsed as? [String: Any], var log = document["log"] as? [String: Any],
              let entries = log["entries"] as? [Any] else {
            throw Failure(description: "not a HAR file: it has no log.entries list")
        }
        var all = SecretCollector(minimumLength: policy.minimumScrubLength)
        var scrubbedEntries: [Any] = []
        var changedEntries = 0
        for item in entries {
            guard var entry = item as? [String: Any] else {
                scrubbedEntries.append(item)
                continue
            }
            var editor = Editor(policy: policy)
            editor.redactByName(&entry)
            editor.scrubByValue(&entry)
            if editor.changed { changedEntries += 1 }
            for value in editor.secrets.values { all.add(value) }
            scrubbedEntries.append(entry)
        }
        log["entries"] = scrubbedEntries
        // Pages and anything else outside the entries: every entry's values.
        var outside = Editor(policy: policy)
        outside.secrets = all
        for key in log.keys where key != "entries" {
            var value = log[key]!
            outside.scrubStrings(in: &value, key: key)
            log[key] = value
        }
        guard changedEntries > 0 || outside.changed else {
            return Result(data: data, entryCount: entries.count, changedEntries: 0, changed: false)
        }
        document["log"] = log
        let output = try JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return Result(data: output, entryCount: entries.count, changedEntries: changedEntries, changed: true)
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
                redactPairs(&request, "queryString", names: policy.queryItemNames, header: false)
                if policy.headerNames.contains("cookie") {
                    redactPairs(&request, "cookies", names: nil, header: false)
                }
                if var postData = request["postData"] as? [String: Any] {
                    redactBody(&postData)
                    redactPairs(&postData, "params", names: policy.queryItemNames.union(policy.jsonFieldNames), header: false)
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
                entry["response"] = response
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
