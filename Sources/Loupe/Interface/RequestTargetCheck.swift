import HTTPTypes

/// Checks a request's authority (host and port) before any transport sees it.
///
/// Runs on every request (`Client.perform` and again just before the transport, for authorities a middleware
/// rewrote), so it only scans the authority's bytes: no URL parsing.
package enum RequestTargetCheck {
    /// The highest TCP port.
    static let maximumPort = 65_535

    /// Why `request` cannot be sent, or `nil` when its authority is usable (or absent: a transport reports that).
    package static func problem(in request: HTTPRequest) -> InvalidRequestTargetError? {
        guard let authority = request.authority else { return nil }
        return problem(inAuthority: authority)
    }

    /// Why `authority` (`host`, `host:port`, `[v6]:port`, optionally after `userinfo@`) cannot be connected to.
    package static func problem(inAuthority authority: String) -> InvalidRequestTargetError? {
        // Scanned as one contiguous buffer: `String.UTF8View`'s generic index walks cost more than the check itself.
        var authority = authority
        return authority.withUTF8 { problem(inBytes: $0[...]) }
    }

    private static func problem(inBytes bytes: Slice<UnsafeBufferPointer<UInt8>>) -> InvalidRequestTargetError? {
        // Userinfo ends at the last `@`; the host starts after it.
        let start = bytes.lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? bytes.startIndex
        let hostAndPort = bytes[start...]
        // An IPv6 literal holds colons of its own: the port separator comes after its closing bracket.
        var searchFrom = hostAndPort.startIndex
        if hostAndPort.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else {
                return InvalidRequestTargetError("the host '\(text(hostAndPort))' has no closing ']'")
            }
            searchFrom = close
        }
        let colon = hostAndPort[searchFrom...].lastIndex(of: UInt8(ascii: ":"))
        let host = hostAndPort[..<(colon ?? hostAndPort.endIndex)]
        if host.isEmpty || host.elementsEqual("[]".utf8) {
            return InvalidRequestTargetError("the URL has no host")
        }
        guard let colon else { return nil }
        let port = hostAndPort[(colon + 1)...]
        // `host:` means the scheme's default port (RFC 3986 §3.2.3).
        guard !port.isEmpty else { return nil }
        guard port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return InvalidRequestTargetError("port '\(text(port))' is not a number")
        }
        // More than five significant digits is out of range whatever they are (and would overflow `Int` past 19).
        let digits = port.drop { $0 == UInt8(ascii: "0") }
        let value = digits.count > 5 ? Int.max : digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...maximumPort).contains(value) else {
            return InvalidRequestTargetError("port \(text(port)) is out of range (1-\(maximumPort))")
        }
        return nil
    }

    /// The bytes as text; every cut above is at an ASCII byte, so no character is split.
    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
