import Foundation

package extension RedactionPolicy {
    /// The exchange with every secret removed: redacted by name, then scrubbed by value everywhere else.
    ///
    /// First the URL's query items and password, the request and response headers and the JSON or form bodies
    /// are redacted by name, and each value removed is kept (with the credentials inside redacted headers: the
    /// token after `Bearer`, a Basic header's base64, `user:password` and password, cookie values). Headers the
    /// client sent on earlier attempts (`alsoSent`, say a token that was refreshed since) only give values.
    /// Then those values, and ``secretValues``, are scrubbed wherever they still appear, in every form
    /// ``SecretForms`` lists: the URL (with ``urlMarker``), the operation, every header value, both bodies (as
    /// bytes, UTF-8 or not), error texts, attempt notes and event messages and attributes.
    ///
    /// Bodies are taken whole and not capped here: redact before cutting, so a secret cannot survive because the
    /// cut made it unrecognisable. The result is stable: redacting it again changes nothing.
    func redact(exchange: TraceExchange, alsoSent: [[TraceHeader]] = []) -> TraceExchange {
        var exchange = exchange
        redact(&exchange, alsoSent: alsoSent)
        return exchange
    }

    /// ``redact(exchange:alsoSent:)`` in place: the writer's exchange, built for it alone, is changed where it is,
    /// and its header and attempt lists are not copied first because a second reference to them was alive
    /// in the caller, as it was before.
    func redact(_ exchange: inout TraceExchange, alsoSent: [[TraceHeader]] = []) {
        var secrets = SecretCollector(minimumLength: minimumScrubLength)
        for value in secretValues { secrets.add(value) }
        let rawURL = exchange.url
        exchange.url = redact(url: rawURL, collecting: &secrets)
        redact(headers: &exchange.requestHeaders, collecting: &secrets)
        redact(headers: &exchange.responseHeaders, collecting: &secrets)
        for headers in alsoSent { collect(headers: headers, into: &secrets) }
        // What the app asked for before a rule changed it: redacted by name like the request that was sent.
        let rawBeforeURL = exchange.beforeRule?.url
        if exchange.beforeRule != nil {
            exchange.beforeRule!.url = redact(url: exchange.beforeRule!.url, collecting: &secrets)
            redact(headers: &exchange.beforeRule!.headers, collecting: &secrets)
            exchange.beforeRule!.body = redact(exchange.beforeRule!.body, headers: exchange.beforeRule!.headers, collecting: &secrets)
        }
        exchange.requestBody = redact(exchange.requestBody, headers: exchange.requestHeaders, collecting: &secrets)
        exchange.responseBody = redact(exchange.responseBody, headers: exchange.responseHeaders, collecting: &secrets)
        // A stream's messages like bodies: JSON by field name (recognised by its first byte), URLs and `Bearer …`
        // in text; what they give is scrubbed by value below, with the rest.
        if let messages = exchange.stream?.messages {
            for index in messages.indices {
                exchange.stream!.messages[index].payload = redact(message: messages[index].payload, collecting: &secrets)
            }
        }

        var urlScrub = Scrubber(url: rawURL, redactedURL: exchange.url)
        if let rawBeforeURL { urlScrub.include(url: rawBeforeURL, redactedURL: exchange.beforeRule!.url) }
        // Free text first by name (the URLs and `Bearer …` it quotes: a redirect's target in an error or a note),
        // so that what it gives is scrubbed by value everywhere with the rest.
        // Inlined: as a call of its own (it was, once the body's redaction grew) it cost ≈ 150 more a text.
        @inline(__always) func named(_ value: String) -> String { redact(text: urlScrub(value), collecting: &secrets) }
        exchange.operation = named(exchange.operation)
        exchange.error = exchange.error.map(named)
        for index in exchange.attempts.indices {
            exchange.attempts[index].error = exchange.attempts[index].error.map(named)
            Self.transformValues(&exchange.attempts[index].notes, named)
        }
        for index in exchange.events.indices {
            exchange.events[index].message = named(exchange.events[index].message)
            Self.transformValues(&exchange.events[index].attributes, named)
        }
        if let reason = exchange.stream?.closeReason { exchange.stream!.closeReason = named(reason) }
        let scrubber = ValueScrubberCache.scrubber(values: secrets.list, minimumLength: secrets.minimumLength)
        guard let scrubber else { return }
        if let messages = exchange.stream?.messages {
            for index in messages.indices {
                if let scrubbed = scrubber.scrub(messages[index].payload) { exchange.stream!.messages[index].payload = scrubbed }
                exchange.stream!.messages[index].eventID = messages[index].eventID.map { scrubber.scrub($0) }
            }
            exchange.stream!.closeReason = exchange.stream!.closeReason.map { scrubber.scrub($0) }
        }
        func text(_ value: String) -> String { scrubber.scrub(value) }
        exchange.operation = text(exchange.operation)
        exchange.error = exchange.error.map(text)
        for index in exchange.attempts.indices {
            exchange.attempts[index].error = exchange.attempts[index].error.map(text)
            Self.transformValues(&exchange.attempts[index].notes, text)
        }
        for index in exchange.events.indices {
            exchange.events[index].message = text(exchange.events[index].message)
            Self.transformValues(&exchange.events[index].attributes, text)
        }
        exchange.url = scrubber.scrubURL(exchange.url)
        Self.transformValues(&exchange.requestHeaders, text)
        Self.transformValues(&exchange.responseHeaders, text)
        if let body = exchange.requestBody, let scrubbed = scrubber.scrub(body.data) { exchange.requestBody?.data = scrubbed }
        if let body = exchange.responseBody, let scrubbed = scrubber.scrub(body.data) { exchange.responseBody?.data = scrubbed }
        if exchange.beforeRule != nil {
            exchange.beforeRule!.url = scrubber.scrubURL(exchange.beforeRule!.url)
            Self.transformValues(&exchange.beforeRule!.headers, text)
            if let body = exchange.beforeRule!.body, let scrubbed = scrubber.scrub(body.data) { exchange.beforeRule!.body!.data = scrubbed }
        }
    }

    /// Applies `transform` to every value of `map`, in place: a value it leaves as it was is not written back, so
    /// a map with nothing to scrub is neither copied nor rehashed (`mapValues` built a new one every time, twice
    /// for every attempt's notes).
    private static func transformValues(_ map: inout [String: String], _ transform: (String) -> String) {
        for (key, value) in map {
            let new = transform(value)
            if new != value { map[key] = new }
        }
    }

    /// Applies `transform` to every header's value, in place (no new list when nothing changes).
    private static func transformValues(_ headers: inout [TraceHeader], _ transform: (String) -> String) {
        for index in headers.indices {
            let new = transform(headers[index].value)
            if new != headers[index].value { headers[index].value = new }
        }
    }

    /// Whether `name` is `Content-Type` in any case: what `name.lowercased() == "content-type"` answered.
    static func isContentType(_ name: String) -> Bool {
        guard name.utf8.count == contentType.count else { return false }
        // Byte by byte, ASCII letters lowered: the only non-ASCII characters that lowercase to ASCII are the Kelvin
        // sign (to `k`, not in this name) and `İ` (to `i` and a combining dot), so none can match (a test checks).
        var name = name
        return name.withUTF8 { bytes in
            for index in 0..<bytes.count {
                let byte = bytes[index], wanted = contentType[index]
                guard byte == wanted || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == wanted)
                else { return false }
            }
            return true
        }
    }

    private static let contentType: [UInt8] = Array("content-type".utf8)

    /// A stream message as a body, and JSON in it after a prefix too (socket.io's `42[…]`, a STOMP frame's body,
    /// `update {…}`): scanned by field name wherever it starts, so short values are redacted where they are named
    /// (issue 44, item 5).
    func redact(message payload: Data, collecting secrets: inout SecretCollector) -> Data {
        var payload = payload
        if !JSONFieldRedactor.looksLikeJSON(payload), payload.contains(UInt8(ascii: "\"")),
           let named = JSONFieldRedactor.redact(payload, names: jsonFieldNames, headerNames: headerNames, collecting: &secrets) {
            payload = named
        }
        return redact(body: payload, contentType: nil, collecting: &secrets)
    }

    private func redact(_ body: TraceBody?, headers: [TraceHeader], collecting secrets: inout SecretCollector) -> TraceBody? {
        guard var body else { return nil }
        // Compared without lowercasing each name into a new string.
        let contentType = headers.last { Self.isContentType($0.name) }?.value
        body.data = redact(body: body.data, contentType: contentType, collecting: &secrets)
        return body
    }
}
