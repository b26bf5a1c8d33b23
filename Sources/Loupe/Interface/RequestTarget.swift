import Foundation

/// The client's base URL split once into the parts every request reuses, so building a request does no URL parsing.
package struct RequestTarget: Sendable {
    let scheme: String
    let authority: String
    /// The base path without a trailing slash ("" for the root).
    let basePath: String
    /// The base URL's own query, already percent-encoded.
    let baseQuery: String?

    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme, let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        self.scheme = scheme
        self.authority = components.port.map { "\(host):\($0)" } ?? host
        let path = components.percentEncodedPath
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        self.baseQuery = components.percentEncodedQuery
    }

    /// `basePath` + `path` (percent-encoded where needed) + the query items.
    func pathAndQuery(_ path: String, query: [URLQueryItem]) -> String {
        var result = basePath + (path.hasPrefix("/") ? "" : "/")
        result += Self.percentEncode(path, allowed: Self.pathAllowed)
        var parts = baseQuery.map { [$0] } ?? []
        for item in query {
            let name = Self.encodeQueryComponent(item.name)
            parts.append(item.value.map { name + "=" + Self.encodeQueryComponent($0) } ?? name)
        }
        return parts.isEmpty ? result : result + "?" + parts.joined(separator: "&")
    }

    /// Path characters pass through (including existing %-escapes, so callers may pre-encode): RFC 3986 `pchar`
    /// and `/` as Foundation's `urlPathAllowed` has them (without `;`), plus `%`.
    static let pathAllowed = ASCIISet(unreservedPlus: "!$&'()*+,=:@/%")
    /// Query names and values: `urlQueryAllowed` without what could end or split a pair (`&`, `=`, `+`, `#`, `;`).
    static let queryAllowed = ASCIISet(unreservedPlus: "!$'()*,:@/?")

    static func encodeQueryComponent(_ string: String) -> String {
        percentEncode(string, allowed: queryAllowed)
    }

    /// `addingPercentEncoding(withAllowedCharacters:)` for an ASCII set, without Foundation: on Linux that call
    /// goes through NSString on every request. Every UTF-8 byte outside `allowed` becomes `%XX`;
    /// a string with nothing to escape is returned as it is.
    package static func percentEncode(_ string: String, allowed: ASCIISet) -> String {
        let utf8 = string.utf8
        // A closure, not the method reference `allowed.contains`, which was allocated on every call.
        if utf8.allSatisfy({ allowed.contains($0) }) { return string }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if allowed.contains(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A set of ASCII bytes, as a 128-bit mask.
package struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// RFC 3986 unreserved characters (letters, digits, `-._~`) and `extra`.
    package init(unreservedPlus extra: String) {
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8 { insert(byte) }
        for byte in extra.utf8 { insert(byte) }
    }

    /// Exactly the ASCII bytes of `characters` (for encodings whose set is not "unreserved plus", such as forms).
    package init(exactly characters: String) {
        for byte in characters.utf8 { insert(byte) }
    }

    private mutating func insert(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
    }

    package func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }
}
