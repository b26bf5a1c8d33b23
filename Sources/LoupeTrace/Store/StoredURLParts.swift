import Foundation

/// The `host` and `path` columns of an exchange: `URLComponents`' `host` and `percentEncodedPath` of its URL, or
/// empty strings when it does not parse.
///
/// Most recorded URLs are plain (`scheme://host[:port]/path?query#fragment` in letters, digits and the few marks
/// that need no escape), and for those the parts are cut out directly: parsing with `URLComponents` was a good part
/// of what storing an exchange cost. Anything else (a user, an IP literal, a percent escape, an IDNA host, an
/// unusual mark, no path) goes to `URLComponents`, so the columns are always what it gives.
enum StoredURLParts {
    static func hostAndPath(of url: String) -> (host: String, path: String) {
        if let parts = plain(url) { return parts }
        let components = URLComponents(string: url)
        return (components?.host ?? "", components?.percentEncodedPath ?? "")
    }

    /// The parts of a plain URL, or `nil` when `URLComponents` must decide.
    static func plain(_ url: String) -> (host: String, path: String)? {
        let bytes = url.utf8
        var index = bytes.startIndex
        // Scheme: a letter, then letters, digits, `+`, `-`, `.`; then `://`.
        guard index < bytes.endIndex, ASCIIBytes.isLetter(bytes[index]) else { return nil }
        while index < bytes.endIndex, ASCIIBytes.isLetter(bytes[index]) || ASCIIBytes.isDigit(bytes[index])
            || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ".") {
            bytes.formIndex(after: &index)
        }
        for mark in "://".utf8 {
            guard index < bytes.endIndex, bytes[index] == mark else { return nil }
            bytes.formIndex(after: &index)
        }
        // Host: a registered name of letters, digits, `-`, `.`, `_`, `~`; then an optional port of digits.
        let hostStart = index
        while index < bytes.endIndex, ASCIIBytes.isHostByte(bytes[index]) { bytes.formIndex(after: &index) }
        let hostEnd = index
        guard hostStart < hostEnd else { return nil }
        // `URLComponents` shows an IDNA label (`xn--…`) decoded: any `--` goes to it.
        var previous: UInt8 = 0
        for byte in bytes[hostStart..<hostEnd] {
            if byte == UInt8(ascii: "-"), previous == byte { return nil }
            previous = byte
        }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") {
            bytes.formIndex(after: &index)
            let portStart = index
            while index < bytes.endIndex, ASCIIBytes.isDigit(bytes[index]) { bytes.formIndex(after: &index) }
            guard portStart < index else { return nil }
        }
        // Path: starts with `/`, runs to `?` or `#`; the rest holds at most one `#`.
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "/") else { return nil }
        let pathStart = index
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            guard ASCIIBytes.isPathByte(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
        }
        let pathEnd = index
        var seenFragment = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                guard !seenFragment else { return nil }
                seenFragment = true
            } else if byte != UInt8(ascii: "?"), !ASCIIBytes.isPathByte(byte) {
                return nil
            }
            bytes.formIndex(after: &index)
        }
        return (String(url[hostStart..<hostEnd]), String(url[pathStart..<pathEnd]))
    }
}
