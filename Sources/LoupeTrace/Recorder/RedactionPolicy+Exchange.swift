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
        var secrets = SecretCollector(minimumLength: minimumScrubLength)
        for value in secretValues { secrets.add(value) }
        var exchange = exchange
        let rawURL = exchange.url
        exchange.url = redact(url: rawURL, collecting: &secrets)
        exchange.requestHeaders = redact(headers: exchange.requestHeaders, collecting: &secrets)
        exchange.responseHeaders = redact(headers: exchange.responseHeaders, collecting: &secrets)
        for headers in alsoSent { _ = redact(headers: headers, collecting: &secrets) }
        exchange.requestBody = redact(exchange.requestBody, headers: exchange.requestHeaders, collecting: &secrets)
        exchange.responseBody = redact(exchange.responseBody, headers: exchange.responseHeaders, collecting: &secrets)
        // A stream's messages like bodies: JSON by field name (recognised by its first byte), URLs and `Bearer …`
        // in text; what they give is scrubbed by value below, with the rest.
        if let messages = exchange.stream?.messages {
            for index in messages.indices {
                exchange.stream!.messages[index].payload = redact(
                    body: messages[index].payload, contentType: nil, collecting: &secrets)
            }
        }

        let urlScrub = Scrubber(url: rawURL, redactedURL: exchange.url)
        // Free text first by name (the URLs and `Bearer …` it quotes: a redirect's target in an error or a note),
        // so that what it gives is scrubbed by value everywhere with the rest.
        func named(_ value: String) -> String { redact(text: urlScrub(value), collecting: &secrets) }
        exchange.operation = named(exchange.operation)
        exchange.error = exchange.error.map(named)
        for index in exchange.attempts.indices {
            exchange.attempts[index].error = exchange.attempts[index].error.map(named)
            exchange.attempts[index].notes = exchange.attempts[index].notes.mapValues(named)
        }
        for index in exchange.events.indices {
            exchange.events[index].message = named(exchange.events[index].message)
            exchange.events[index].attributes = exchange.events[index].attributes.mapValues(named)
        }
        if let reason = exchange.stream?.closeReason { exchange.stream!.closeReason = named(reason) }
        let scrubber = ValueScrubberCache.scrubber(values: secrets.values, minimumLength: secrets.minimumLength)
        guard let scrubber else { return exchange }
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
            exchange.attempts[index].notes = exchange.attempts[index].notes.mapValues(text)
        }
        for index in exchange.events.indices {
            exchange.events[index].message = text(exchange.events[index].message)
            exchange.events[index].attributes = exchange.events[index].attributes.mapValues(text)
        }
        exchange.url = scrubber.scrub(exchange.url, marker: Self.urlMarker)
        exchange.requestHeaders = exchange.requestHeaders.map { TraceHeader(name: $0.name, value: scrubber.scrub($0.value)) }
        exchange.responseHeaders = exchange.responseHeaders.map { TraceHeader(name: $0.name, value: scrubber.scrub($0.value)) }
        for keyPath in [\TraceExchange.requestBody, \TraceExchange.responseBody] {
            guard let body = exchange[keyPath: keyPath], let scrubbed = scrubber.scrub(body.data) else { continue }
            exchange[keyPath: keyPath]?.data = scrubbed
        }
        return exchange
    }

    private func redact(_ body: TraceBody?, headers: [TraceHeader], collecting secrets: inout SecretCollector) -> TraceBody? {
        guard var body else { return nil }
        let contentType = headers.last { $0.name.lowercased() == "content-type" }?.value
        body.data = redact(body: body.data, contentType: contentType, collecting: &secrets)
        return body
    }
}
