import HTTPTypes

/// The parts of a request's absolute URL string the recorder keeps, split by hand, and the operation name an adapter
/// gives an exchange: what the adapters around AsyncHTTPClient and URLSession do on every recorded request, shared
/// here (`package`) so that both split a URL the same way.
package enum AdapterRequestHead {
    /// `url`'s scheme, authority (host and port, never any userinfo) and path with its query (the fragment
    /// dropped; `/` when the path is empty), split at the delimiters RFC 3986 §3 gives them; `nil` when `url` does
    /// not start with `scheme://` (its scheme letters, digits, `+`, `-` or `.`, the first a letter), for the caller
    /// to parse as it did before.
    ///
    /// The URL has been accepted by the stack that sends it (AsyncHTTPClient, `URL`), so only the split is needed:
    /// parsing it again (`URLComponents`, the host through ICU's IDNA mapping) cost more than the rest of the
    /// adapter's own work. The parts are the ones `URLComponents` gives for a URL that parses (tests compare them with
    /// HTTPTypesFoundation's `URLRequest.httpRequest`).
    package static func split(_ url: String) -> (scheme: String, authority: String?, path: String)? {
        // Over the string's UTF-8 bytes in place, by offset: with `String.UTF8View` indices, substrings and
        // `starts(with:)` the split cost several times as much; a delimiter is ASCII, so every piece cut
        // at one is valid UTF-8 on its own.
        var url = url
        return url.withUTF8 { split($0) }
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (scheme: String, authority: String?, path: String)? {
        let count = bytes.count
        // RFC 3986's `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, then `://`: what comes before the
        // first `:` of a relative reference (`/p?next=http://…`) is not a scheme.
        guard count > 0, isLetter(bytes[0]) else { return nil }
        var schemeEnd = 1
        while schemeEnd < count, isSchemeByte(bytes[schemeEnd]) { schemeEnd += 1 }
        guard schemeEnd + 3 <= count, bytes[schemeEnd] == UInt8(ascii: ":"), bytes[schemeEnd + 1] == UInt8(ascii: "/"),
              bytes[schemeEnd + 2] == UInt8(ascii: "/") else { return nil }
        let authorityStart = schemeEnd + 3
        var authorityEnd = authorityStart
        var hostStart = authorityStart
        while authorityEnd < count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            // userinfo@host: a credential in a URL is never recorded as part of the host.
            if byte == UInt8(ascii: "@") { hostStart = authorityEnd + 1 }
            authorityEnd += 1
        }
        var pathEnd = authorityEnd
        while pathEnd < count, bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        func text(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        let path = pathEnd == authorityEnd || bytes[authorityEnd] == UInt8(ascii: "?")
            ? "/" + text(authorityEnd, pathEnd) : text(authorityEnd, pathEnd)
        return (text(0, schemeEnd), hostStart < authorityEnd ? text(hostStart, authorityEnd) : nil, path)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// ``Client/operationName(_:)`` of `request` (`METHOD /path`, without the query), made without splitting the
    /// path into an array and interpolating: the same string, with no array or interpolation. A path that is
    /// missing, empty or starts with `?` is left to `Client.operationName`, whose split skips empty pieces.
    package static func operationName(_ request: HTTPRequest) -> String {
        guard let path = request.path, let first = path.utf8.first, first != UInt8(ascii: "?") else {
            return Client.operationName(request)
        }
        let end = path.utf8.firstIndex(of: UInt8(ascii: "?")) ?? path.utf8.endIndex
        var name = request.method.rawValue
        name.append(" ")
        name.append(contentsOf: path[..<end])
        return name
    }
}
