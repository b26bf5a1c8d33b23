import Foundation
import LoupeTrace

/// Recorded exchanges as HTTP/1.1 messages: the request, a blank line, the response; exchanges are separated by a
/// `----` line.
///
/// Heads use CRLF as on the wire; bodies are the recorded bytes (already redacted, possibly truncated) exactly.
/// The request is in origin form with a `Host` header taken from the URL when none was recorded, and an exchange
/// that got no response has the request alone. A CR or LF inside a header (possible only in imported data) is
/// written as a space, so one header can never split the message.
enum RawHTTPExporter {
    /// The line between two exchanges, with the blank line before it.
    static let separator = Data("\r\n----\r\n\r\n".utf8)

    /// Request and response of `exchange`.
    static func data(for exchange: TraceExchange) -> Data {
        var headers = exchange.requestHeaders
        if !headers.contains(where: { $0.name.lowercased() == "host" }), let authority = authority(of: exchange.url) {
            headers.insert(TraceHeader(name: "Host", value: authority), at: 0)
        }
        var output = message(
            startLine: "\(exchange.method) \(exchange.pathAndQuery) HTTP/1.1", headers: headers, body: exchange.requestBody)
        guard exchange.status != nil || !exchange.responseHeaders.isEmpty || exchange.responseBody != nil else {
            return output
        }
        let status = exchange.status ?? 0
        let statusLine = "HTTP/1.1 " + (HTTPReasonPhrase.phrase(for: status).map { "\(status) \($0)" } ?? "\(status) ")
        output.append(contentsOf: Self.crlf)
        output.append(message(startLine: statusLine, headers: exchange.responseHeaders, body: exchange.responseBody))
        return output
    }

    private static let crlf = Data("\r\n".utf8)

    /// A start line, headers, a blank line and the body, ending in a line break.
    private static func message(startLine: String, headers: [TraceHeader], body: TraceBody?) -> Data {
        var head = oneLine(startLine) + "\r\n"
        for header in headers { head += oneLine(header.name) + ": " + oneLine(header.value) + "\r\n" }
        head += "\r\n"
        var output = Data(head.utf8)
        if let body, !body.data.isEmpty {
            output.append(body.data)
            if body.data.last != UInt8(ascii: "\n") { output.append(contentsOf: crlf) }
        }
        return output
    }

    /// `host[:port]` of an absolute URL, without user information; `nil` for anything else.
    static func authority(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return host.isEmpty ? nil : String(host)
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }
}
