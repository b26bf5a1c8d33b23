import Foundation
import Loupe
import LoupeTrace

/// Writes an exchange's HAR entry straight into ``HARBytes``: byte for byte what ``HARExporter/entry(for:)``
/// encoded by `JSONEncoder` with ``HARWriter``'s options gives, without building the `HAREntry` (its arrays of
/// headers, cookies and query items, and a `String` for every number and date).
///
/// The members are written in the order the encoder sorts them, and each value comes from the same helper the
/// exporter uses (content types, cookies, query items, status texts, timings, truncation comments), so the two
/// can only differ in layout, which HARStreamExportTests check against `JSONEncoder` on varied exchanges.
enum HAREntryWriter {
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")

    /// One entry, at the depth `out` is at.
    static func write(_ exchange: TraceExchange, to out: HARBytes) throws {
        try write(exchange, requestHeaders: .parsed(exchange.requestHeaders),
                  responseHeaders: .parsed(exchange.responseHeaders), to: out)
    }

    /// One entry whose header lists come from `requestHeaders` and `responseHeaders` (the exchange's own are not
    /// read).
    static func write(_ exchange: TraceExchange, requestHeaders: HARHeaderSource, responseHeaders: HARHeaderSource,
                      to out: HARBytes, messageJSON: (@Sendable (TraceExchange, TraceMessage) -> String?)? = nil) throws {
        // Phases are computed from times on the microsecond grid `_loupe` stores, as the exporter does.
        let startedAt = grid(exchange.startedAt)
        let timings = HARExporter.timings(
            startedAt: startedAt, endedAt: exchange.endedAt.map(grid), lastAttempt: exchange.attempts.last.map(gridded))
        let entry = out.open(openBrace)
        out.key("_loupe")
        try writeLoupe(exchange, to: out, messageJSON: messageJSON)
        if let stream = exchange.stream {
            out.member("_resourceType", stream.kind.harResourceType)
            if stream.kind == .webSocket {
                out.key("_webSocketMessages")
                try writeWebSocketMessages(stream, to: out)
            }
        }
        out.key("cache")
        out.close(closeBrace, out.open(openBrace))
        out.key("request")
        writeRequest(exchange, headers: requestHeaders, to: out)
        out.key("response")
        writeResponse(exchange, headers: responseHeaders, to: out)
        out.key("startedDateTime")
        writeDate(startedAt, to: out)
        try out.member("time", HARExporter.rounded(timings.knownTotal))
        out.key("timings")
        try writeTimings(timings, to: out)
        out.close(closeBrace, entry)
    }

    // MARK: Request and response

    private static func writeRequest(_ exchange: TraceExchange, headers: HARHeaderSource, to out: HARBytes) {
        let derived = headers.derived(cookieName: "cookie", wantsLocation: false)
        let request = out.open(openBrace)
        out.member("bodySize", exchange.requestBody?.size ?? 0)
        writeCookiesAndHeaders(HARHeaders.requestCookies(derived.cookieHeaders), headers, to: out)
        out.member("method", exchange.method)
        if let body = exchange.requestBody {
            out.key("postData")
            let postData = out.open(openBrace)
            writeBody(body, mimeType: derived.contentType, size: nil, to: out)
            out.close(closeBrace, postData)
        }
        out.key("queryString")
        writeNameValues(HARQueryItems.items(of: exchange.url), to: out)
        out.member("url", exchange.url)
        out.close(closeBrace, request)
    }

    private static func writeResponse(_ exchange: TraceExchange, headers: HARHeaderSource, to out: HARBytes) {
        let response = out.open(openBrace)
        guard exchange.status != nil || !headers.isEmpty || exchange.responseBody != nil else {
            // `HARResponse.none`.
            out.member("bodySize", -1)
            out.key("content")
            let content = out.open(openBrace)
            out.member("mimeType", "x-unknown")
            out.member("size", 0)
            out.close(closeBrace, content)
            out.key("cookies")
            out.close(closeBracket, out.open(openBracket))
            out.key("headers")
            out.close(closeBracket, out.open(openBracket))
            out.member("headersSize", -1)
            out.member("httpVersion", "")
            out.member("redirectURL", "")
            out.member("status", 0)
            out.member("statusText", "")
            return out.close(closeBrace, response)
        }
        let status = exchange.status ?? 0
        let derived = headers.derived(cookieName: "set-cookie", wantsLocation: true)
        let contentType = derived.contentType
        out.member("bodySize", exchange.responseBody?.size ?? 0)
        out.key("content")
        let content = out.open(openBrace)
        if let body = exchange.responseBody {
            writeBody(body, mimeType: contentType, size: body.size, to: out)
        } else {
            out.member("mimeType", contentType ?? "x-unknown")
            out.member("size", 0)
        }
        out.close(closeBrace, content)
        writeCookiesAndHeaders(HARHeaders.responseCookies(derived.cookieHeaders), headers, to: out)
        out.member("redirectURL", derived.location ?? "")
        out.member("status", status)
        out.member("statusText", HARStatusText.text(for: status))
        out.close(closeBrace, response)
    }

    /// `cookies`, `headers`, `headersSize` and `httpVersion`: the members a request and a response share, in order.
    private static func writeCookiesAndHeaders(_ cookies: [HARCookie], _ headers: HARHeaderSource, to out: HARBytes) {
        out.key("cookies")
        writeCookies(cookies, to: out)
        out.key("headers")
        headers.write(to: out)
        out.member("headersSize", -1)
        out.member("httpVersion", HARExporter.unknownHTTPVersion)
    }

    /// A body's `comment`, `encoding` (base64 unless it is UTF-8), `mimeType`, `size` (a response's) and `text`.
    private static func writeBody(_ body: TraceBody, mimeType: String?, size: Int?, to out: HARBytes) {
        out.member("comment", HARExporter.truncationComment(body))
        let isText = UTF8Validation.isUTF8(body.data)
        if !isText { out.member("encoding", "base64") }
        out.member("mimeType", mimeType ?? "application/octet-stream")
        out.member("size", size)
        out.key("text")
        HARBodyBytes.write(body.data, isText: isText, to: out)
    }

    private static func writeTimings(_ timings: HARTimings, to out: HARBytes) throws {
        let object = out.open(openBrace)
        try out.member("blocked", timings.blocked)
        out.member("comment", timings.comment)
        try out.member("connect", timings.connect)
        try out.member("dns", timings.dns)
        try out.member("receive", timings.receive)
        try out.member("send", timings.send)
        try out.member("ssl", timings.ssl)
        try out.member("wait", timings.wait)
        out.close(closeBrace, object)
    }

    // MARK: Lists

    /// `[{…}, {…}]`: one object per item, its members written by `members`.
    static func writeObjects<Item>(_ items: [Item], to out: HARBytes, _ members: (Item) throws -> Void) rethrows {
        let list = out.open(openBracket)
        for item in items {
            out.element()
            let object = out.open(openBrace)
            try members(item)
            out.close(closeBrace, object)
        }
        out.close(closeBracket, list)
    }

    private static func writeNameValues(_ items: [HARNameValue], to out: HARBytes) {
        writeObjects(items, to: out) { item in
            out.member("comment", item.comment)
            out.member("name", item.name)
            out.member("value", item.value)
        }
    }

    private static func writeCookies(_ cookies: [HARCookie], to out: HARBytes) {
        writeObjects(cookies, to: out) { cookie in
            out.member("comment", cookie.comment)
            out.member("domain", cookie.domain)
            out.member("expires", cookie.expires)
            out.member("httpOnly", cookie.httpOnly)
            out.member("name", cookie.name)
            out.member("path", cookie.path)
            out.member("secure", cookie.secure)
            out.member("value", cookie.value)
        }
    }
}
