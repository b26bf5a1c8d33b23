import Foundation

/// The one string an app needs to reach a listener: `loupe://SECRET@HOST:PORT?fp=sha256:HEX`.
///
/// `loupe+tcp://SECRET@HOST:PORT` is the same link in plain TCP, for a listener started with
/// `--insecure-loopback`: accepted only for a loopback host (127.0.0.0/8, ::1, localhost), so nothing readable
/// ever crosses a network. The scheme is the app's explicit opt-in, as the flag is the listener's.
///
/// `loupe listen` and `loupe tui --listen` print it on start; an app is given it (`--link`, `LOUPE_LINK`,
/// ``LoupeLink/init(_:configuration:)``). Parsing checks every part once, here: the secret's alphabet and length,
/// the port's range (1 to 65535: the socket layer traps above it), the fingerprint's 64 hex digits.
public struct LinkAddress: Sendable, Hashable, CustomStringConvertible {
    /// What the app proves inside TLS; 16 to 128 characters of `A-Z a-z 0-9 - _`.
    public var secret: String
    /// A host name, an IPv4 address, or an IPv6 address (written in brackets in the string).
    public var host: String
    /// 1 to 65535.
    public var port: Int
    /// The SHA-256 of the listener's certificate (DER), which the app pins; nil for a plain-TCP loopback link
    /// (`loupe+tcp://`).
    public var fingerprint: CertificateFingerprint?
    /// Whether this is a plain-TCP loopback link (`loupe+tcp://`, no TLS).
    public var isPlainTCP: Bool { fingerprint == nil }

    /// The environment variable an app reads its link from.
    public static let environmentVariable = "LOUPE_LINK"

    public init(secret: String, host: String, port: Int, fingerprint: CertificateFingerprint) throws(LinkAddressError) {
        try self.init(secret: secret, host: host, port: port, pinning: fingerprint)
    }

    /// A plain-TCP link to a listener on this machine (`loupe+tcp://`); refused for a host that is not loopback.
    public static func plainLoopback(secret: String, host: String, port: Int) throws(LinkAddressError) -> LinkAddress {
        try LinkAddress(secret: secret, host: host, port: port, pinning: nil)
    }

    private init(secret: String, host: String, port: Int, pinning fingerprint: CertificateFingerprint?) throws(LinkAddressError) {
        guard Self.isValidSecret(secret) else { throw .badSecret }
        guard (1...65_535).contains(port) else { throw .badPort(String(port)) }
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(Self.isHostScalar) else { throw .badHost(host) }
        guard fingerprint != nil || Self.isLoopback(host) else { throw .plainTCPNotLoopback(host) }
        self.secret = secret
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
    }

    /// Whether `host` names this machine's loopback: `localhost`, `127.0.0.0/8`, `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    /// Reads `loupe://SECRET@HOST:PORT?fp=sha256:HEX`, or `loupe+tcp://SECRET@HOST:PORT` for a loopback host.
    public init(parsing text: String) throws(LinkAddressError) {
        guard text.utf8.count <= 1024 else { throw .tooLong }
        let scheme = "loupe://", plainScheme = "loupe+tcp://"
        let plain = text.hasPrefix(plainScheme)
        guard plain || text.hasPrefix(scheme) else { throw .notALink }
        let rest = text.dropFirst(plain ? plainScheme.count : scheme.count)
        guard let at = rest.firstIndex(of: "@") else { throw .badSecret }
        let secret = String(rest[..<at])
        let afterAt = rest[rest.index(after: at)...]
        let question = afterAt.firstIndex(of: "?")
        guard plain || question != nil else { throw .missingFingerprint }
        if plain && question != nil { throw .fingerprintOnPlainTCP }
        let authority = afterAt[..<(question ?? afterAt.endIndex)]
        let query = question.map { afterAt[afterAt.index(after: $0)...] } ?? ""
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badHost(String(authority)) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let tail = authority[authority.index(after: close)...]
            guard tail.hasPrefix(":") else { throw .missingPort }
            portText = tail.dropFirst()
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw .missingPort }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        if plain {
            self = try .plainLoopback(secret: secret, host: String(host), port: try Self.port(portText))
            return
        }
        guard query.hasPrefix("fp=sha256:") else { throw .missingFingerprint }
        guard let fingerprint = CertificateFingerprint(hex: query.dropFirst("fp=sha256:".count)) else {
            throw .badFingerprint
        }
        try self.init(secret: secret, host: String(host), port: try Self.port(portText), fingerprint: fingerprint)
    }

    /// The link in `LOUPE_LINK`, nil when it is unset or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(LinkAddressError) -> LinkAddress?
    {
        guard let text = environment[environmentVariable], !text.isEmpty else { return nil }
        return try LinkAddress(parsing: text)
    }

    /// The full string, secret included: print it only where the user asked for it (the listener's start line).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        guard let fingerprint else { return "loupe+tcp://\(secret)@\(shownHost):\(port)" }
        return "loupe://\(secret)@\(shownHost):\(port)?fp=sha256:\(fingerprint.hex)"
    }

    /// The link without its secret, for logs: `loupe://…@HOST:PORT`.
    public var redacted: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return (isPlainTCP ? "loupe+tcp" : "loupe") + "://…@\(shownHost):\(port)"
    }

    static func isValidSecret(_ secret: String) -> Bool {
        (16...128).contains(secret.utf8.count) && secret.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func isHostScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-:_%".unicodeScalars.contains(scalar))
    }

    /// 1 to 65535, decimal digits only (no sign, no spaces), at most five of them so nothing overflows.
    static func port(_ text: Substring) throws(LinkAddressError) -> Int {
        guard !text.isEmpty else { throw .missingPort }
        guard text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text),
              (1...65_535).contains(value)
        else { throw .badPort(String(text.prefix(16))) }
        return value
    }
}

/// Why a link string was refused; each reads as one line after `loupe: `.
public enum LinkAddressError: Error, Equatable, CustomStringConvertible {
    case notALink, tooLong, badSecret, missingPort, missingFingerprint, badFingerprint
    case badPort(String)
    case badHost(String)
    case plainTCPNotLoopback(String)
    case fingerprintOnPlainTCP

    public var description: String {
        switch self {
        case .notALink: "a link starts with loupe:// (loupe://SECRET@HOST:PORT?fp=sha256:HEX)"
        case .tooLong: "the link is longer than 1024 bytes"
        case .badSecret: "the link's secret must be 16 to 128 characters of A-Z a-z 0-9 - _, before an @"
        case .missingPort: "the link has no port (loupe://SECRET@HOST:PORT?fp=sha256:HEX)"
        case .missingFingerprint: "the link has no fingerprint (…?fp=sha256:HEX)"
        case .badFingerprint: "the link's fingerprint must be sha256: and 64 hex digits"
        case .badPort(let text): "the link's port '\(text)' is not a port from 1 to 65535"
        case .badHost(let text): "the link's host '\(text.prefix(64))' is not a host name or address"
        case .plainTCPNotLoopback(let text):
            "loupe+tcp:// (plain TCP, no TLS) is for loopback only: '\(text.prefix(64))' is not 127.0.0.1, ::1 or localhost"
        case .fingerprintOnPlainTCP: "a loupe+tcp:// link has no fingerprint (plain TCP has no certificate to pin)"
        }
    }
}

/// A certificate's SHA-256 (of its DER bytes): what an app pins.
public struct CertificateFingerprint: Sendable, Hashable {
    /// 32 bytes.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// 64 hex digits, either case.
    public init?(hex: some StringProtocol) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for pair in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(utf8[pair]), let low = Self.nibble(utf8[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// Lower-case hex.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Compares in time that does not depend on where the first difference is.
    public func matches(_ other: CertificateFingerprint) -> Bool {
        zip(bytes, other.bytes).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }
}
