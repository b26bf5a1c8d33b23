import Foundation
import LoupeTrace

/// A recorded request as the text `e` opens in an editor (request line, headers, a blank line, the body), and that
/// text read back as the request to send.
package enum EditableRequest {
    /// Why an edited request cannot be sent, with the line it is about.
    package struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        package var line: Int
        package var message: String
        package var description: String { "line \(line): \(message)" }
    }

    /// `POST https://api.example.com/orders HTTP/1.1`, the headers, a blank line, the body as text.
    package static func text(of exchange: TraceExchange) -> String {
        var text = "\(exchange.method) \(exchange.url) HTTP/1.1\n"
        for header in exchange.requestHeaders { text += "\(header.name): \(header.value)\n" }
        text += "\n"
        if let body = exchange.requestBody?.data { text += String(decoding: body, as: UTF8.self) }
        return text
    }

    /// `original` with the method, URL, headers and body the text gives; the id stays, so the replay is recorded
    /// as a replay of the original.
    package static func request(from text: String, original: TraceExchange) throws(Problem) -> TraceExchange {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty, !lines.isEmpty {
            lines.removeFirst()
        }
        guard let requestLine = lines.first else { throw Problem(line: 1, message: "the file is empty: nothing was sent") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2 || parts.count == 3, parts[0].allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw Problem(line: 1, message: "expected a request line like 'GET https://host/path HTTP/1.1'")
        }
        guard let url = URL(string: parts[1]), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil else {
            throw Problem(line: 1, message: "expected an absolute http(s) URL, got '\(parts[1])'")
        }
        var headers: [TraceHeader] = []
        var index = 1
        while index < lines.count, !lines[index].isEmpty {
            guard let colon = lines[index].firstIndex(of: ":"), colon != lines[index].startIndex else {
                throw Problem(line: index + 1, message: "expected a header 'Name: value' or a blank line before the body")
            }
            let name = String(lines[index][..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(lines[index][lines[index].index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                throw Problem(line: index + 1, message: "'\(name)' is not a header name")
            }
            headers.append(TraceHeader(name: name, value: value))
            index += 1
        }
        let body = index + 1 < lines.count ? lines[(index + 1)...].joined(separator: "\n") : ""
        var request = original
        request.method = parts[0].uppercased()
        request.url = parts[1]
        request.requestHeaders = headers
        request.requestBody = body.isEmpty ? nil : TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false)
        return request
    }
}
