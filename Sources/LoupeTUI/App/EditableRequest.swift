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
    ///
    /// The body keeps the bytes the user did not change (issue 43.11): a body left as it was is the recorded bytes
    /// exactly (a signed body, a binary one, CR LF inside it), and the one newline an editor adds at the end of the
    /// file (vim's `fixeol`) is not sent when the recorded body did not end with one. Line ends are
    /// normalised in the request line and headers only.
    package static func request(from text: String, original: TraceExchange) throws(Problem) -> TraceExchange {
        // By scalars, not characters: CR LF is one character, and a search for LF would not find it.
        var rest = Substring(text).unicodeScalars
        var lineNumber = 0
        /// The next line without its LF (and a CR before it); `nil` at the end of the text.
        func nextLine() -> Substring? {
            guard !rest.isEmpty else { return nil }
            lineNumber += 1
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            var line = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            if line.last == "\r" { line = line.dropLast() }
            return Substring(line)
        }
        var first = nextLine()
        while let line = first, line.trimmingCharacters(in: .whitespaces).isEmpty { first = nextLine() }
        guard let requestLine = first else { throw Problem(line: 1, message: "the file is empty: nothing was sent") }
        let requestLineNumber = lineNumber
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2 || parts.count == 3, parts[0].allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw Problem(line: requestLineNumber, message: "expected a request line like 'GET https://host/path HTTP/1.1'")
        }
        guard let url = URL(string: parts[1]), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil else {
            throw Problem(line: requestLineNumber, message: "expected an absolute http(s) URL, got '\(parts[1])'")
        }
        var headers: [TraceHeader] = []
        while let line = nextLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw Problem(line: lineNumber, message: "expected a header 'Name: value' or a blank line before the body")
            }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                throw Problem(line: lineNumber, message: "'\(name)' is not a header name")
            }
            headers.append(TraceHeader(name: name, value: value))
        }
        var request = original
        request.method = parts[0].uppercased()
        request.url = parts[1]
        request.requestHeaders = headers
        request.requestBody = body(String(Substring(rest)), original: original.requestBody)
        return request
    }

    /// The body the text after the blank line stands for, keeping `original`'s bytes where the text is theirs. The
    /// comparison is of text, as the editor showed it: a binary body shown with replacement characters and left
    /// alone is still sent as recorded.
    private static func body(_ text: String, original: TraceBody?) -> TraceBody? {
        let recorded = original.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
        if text == recorded || text == recorded + "\n" || text == recorded + "\r\n" { return original }
        var bytes = Array(text.utf8)
        let recordedEnd = original?.data.last
        if recordedEnd != UInt8(ascii: "\n"), bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        return bytes.isEmpty ? nil : TraceBody(data: Data(bytes), size: bytes.count, isTruncated: false)
    }
}
