import Foundation

/// The `host` and `path` columns of an exchange: `URLComponents`' `host` and `percentEncodedPath` of its URL, or
/// empty strings when it does not parse.
///
/// Most recorded URLs are plain (`scheme://host[:port]/path?query#fragment` in letters, digits and the few marks
/// that need no escape), and for those the parts are cut out directly: parsing with `URLComponents` was a good part
/// of what storing an exchange cost. Anything else (a user, an IP literal, a percent escape, an IDNA host, an
/// unusual mark, no path) goes to `URLComponents`, so the columns are always what it gives.
package enum StoredURLParts {
    package static func hostAndPath(of url: String) -> (host: String, path: String) {
        if let parts = plain(url) { return parts }
        let components = URLComponents(string: url)
        return (components?.host ?? "", components?.percentEncodedPath ?? "")
    }

    /// The parts of a plain URL (``PlainURLPrefix``, then query bytes and at most one `#`), or `nil` when
    /// `URLComponents` must decide.
    package static func plain(_ url: String) -> (host: String, path: String)? {
        var url = url
        return url.withUTF8 { bytes -> (host: String, path: String)? in
            guard let (host, path) = plainRanges(bytes) else { return nil }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[host]), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[path]), as: UTF8.self))
        }
    }

    /// Where ``plain(_:)``'s host and path are in the URL's bytes, or `nil` when `URLComponents` must decide. Plain
    /// bytes are printable ASCII, never a NUL.
    package static func plainRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> (host: Range<Int>, path: Range<Int>)? {
        guard let (host, path) = PlainURLPrefix.scan(bytes) else { return nil }
        var seenFragment = false
        for byte in bytes[path.upperBound...] {
            if byte == UInt8(ascii: "#") {
                guard !seenFragment else { return nil }
                seenFragment = true
            } else if byte != UInt8(ascii: "?"), !ASCIIBytes.isPathByte(byte) {
                return nil
            }
        }
        return (host, path)
    }
}
