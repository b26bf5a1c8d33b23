/// The start of a plain URL, `scheme://host[:port]/path`, cut out by hand where `URLComponents` is too slow.
///
/// Plain means a scheme of letters, digits, `+`, `-` and `.`; a host registered name of letters, digits, `-`, `.`,
/// `_` and `~` with no `--` (`URLComponents` shows an IDNA label, `xn--…`, decoded); an optional port of digits;
/// and a path of ``ASCIIBytes/isPathByte(_:)`` bytes starting with `/`. Anything else (a user, an IP literal, an
/// escape, bytes past ASCII, no path) is not plain, and its callers ask `URLComponents`.
package enum PlainURLPrefix {
    /// The host's and the path's byte ranges; the path ends at the first `?` or `#`, or at the end.
    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (host: Range<Int>, path: Range<Int>)? {
        var index = 0
        guard index < bytes.count, ASCIIBytes.isLetter(bytes[index]) else { return nil }
        while index < bytes.count, ASCIIBytes.isLetter(bytes[index]) || ASCIIBytes.isDigit(bytes[index])
            || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ".") {
            index += 1
        }
        for mark in "://".utf8 {
            guard index < bytes.count, bytes[index] == mark else { return nil }
            index += 1
        }
        let hostStart = index
        var previous: UInt8 = 0
        while index < bytes.count, ASCIIBytes.isHostByte(bytes[index]) {
            if bytes[index] == UInt8(ascii: "-"), previous == bytes[index] { return nil }
            previous = bytes[index]
            index += 1
        }
        let host = hostStart..<index
        guard !host.isEmpty else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            while index < bytes.count, ASCIIBytes.isDigit(bytes[index]) { index += 1 }
            guard portStart < index else { return nil }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        let pathStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            guard ASCIIBytes.isPathByte(bytes[index]) else { return nil }
            index += 1
        }
        return (host, pathStart..<index)
    }
}
