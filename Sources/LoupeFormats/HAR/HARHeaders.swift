import Foundation
import LoupeTrace

/// Header and cookie conversions between the trace model and HAR.
enum HARHeaders {
    static func nameValue(_ header: TraceHeader) -> HARNameValue {
        HARNameValue(name: header.name, value: header.value)
    }

    /// The first value of `name` (lower-case ASCII, compared ignoring case).
    static func value(of name: String, in headers: [TraceHeader]) -> String? {
        headers.first { isNamed($0.name, name) }?.value
    }

    /// Whether `name.lowercased() == lowercase`, for a lower-case ASCII `lowercase`: export asks this of every
    /// header several times, so ASCII names are compared in place; others take `lowercased()`, which may map
    /// non-ASCII letters (the Kelvin sign) to ASCII ones.
    static func isNamed(_ name: String, _ lowercase: String) -> Bool {
        var target = lowercase.utf8.makeIterator()
        for byte in name.utf8 {
            guard byte < 0x80 else { return name.lowercased() == lowercase }
            let lowered = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
            guard target.next() == lowered else {
                // A mismatch on ASCII so far still has to see whether a later byte is not ASCII.
                return !name.utf8.allSatisfy { $0 < 0x80 } && name.lowercased() == lowercase
            }
        }
        return target.next() == nil
    }

    /// `Cookie: a=1; b=2` as cookies; redacted headers give none.
    static func requestCookies(_ headers: [TraceHeader]) -> [HARCookie] {
        headers.filter { isNamed($0.name, "cookie") && $0.value != RedactionPolicy.marker }.flatMap { header in
            header.value.split(separator: ";").compactMap { pair -> HARCookie? in
                let (name, value) = split(pair)
                return name.isEmpty ? nil : HARCookie(name: name, value: value)
            }
        }
    }

    /// Each `Set-Cookie` as a cookie with its path, domain and flags; redacted headers give none.
    static func responseCookies(_ headers: [TraceHeader]) -> [HARCookie] {
        headers.filter { isNamed($0.name, "set-cookie") && $0.value != RedactionPolicy.marker }
            .compactMap { header in
                let parts = header.value.split(separator: ";")
                guard let first = parts.first else { return nil }
                let (name, value) = split(first)
                guard !name.isEmpty else { return nil }
                var cookie = HARCookie(name: name, value: value)
                for attribute in parts.dropFirst() {
                    let (key, argument) = split(attribute)
                    switch key.lowercased() {
                    case "path": cookie.path = argument
                    case "domain": cookie.domain = argument
                    case "httponly": cookie.httpOnly = true
                    case "secure": cookie.secure = true
                    default: break
                    }
                }
                return cookie
            }
    }

    /// `name=value` trimmed; a part without `=` is a name with an empty value.
    private static func split(_ pair: Substring) -> (String, String) {
        let trimmed = pair.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed, "") }
        return (String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...]))
    }
}

/// Bodies as HAR text: UTF-8 as is, anything else base64.
enum HARBodyText {
    static func encode(_ data: Data) -> (text: String, encoding: String?) {
        // Validated as is (no BOM stripping), so `Data(text.utf8)` gives back exactly these bytes.
        if let text = String(validating: data, as: UTF8.self) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    /// The bytes of `text`; `nil` when `encoding` is base64 and the text is not valid base64.
    static func decode(_ text: String, encoding: String?) -> Data? {
        guard let encoding, encoding.lowercased() == "base64" else { return Data(text.utf8) }
        // Some tools wrap base64 at 76 columns.
        return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
    }
}

/// Reason phrases for `statusText` (Loupe records codes, not phrases).
enum HARStatusText {
    static func text(for status: Int) -> String {
        phrases[status] ?? ""
    }

    private static let phrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 425: "Too Early",
        426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 507: "Insufficient Storage",
        511: "Network Authentication Required",
    ]
}
