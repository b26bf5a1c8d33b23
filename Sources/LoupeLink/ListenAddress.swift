/// Where a listener binds: `[ADDR:]PORT`, `127.0.0.1` when no address is given.
///
/// The port is 0 to 65535 (0 picks a free one); ``defaultPort`` when none is given at all.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// The port `loupe listen` and `loupe tui --listen` use when none is given: 7420.
    public static let defaultPort = 7420
    /// Loopback unless another address is named: a listener is reachable from elsewhere only when asked.
    public static let defaultHost = "127.0.0.1"

    public init(host: String = ListenAddress.defaultHost, port: Int = ListenAddress.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Reads `PORT`, `ADDR:PORT` or `[IPv6]:PORT`.
    public init(parsing text: String) throws(ListenAddressError) {
        guard text.utf8.count <= 300 else { throw .tooLong }
        var host = Self.defaultHost
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .bad(text)
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { throw .bad(text) }
        }
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(LinkAddress.isHostScalar) else { throw .bad(text) }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let port = Int(portText), (0...65_535).contains(port)
        else { throw .badPort(String(portText.prefix(16))) }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why `[ADDR:]PORT` was refused.
public enum ListenAddressError: Error, Equatable, CustomStringConvertible {
    case tooLong
    case bad(String)
    case badPort(String)

    public var description: String {
        switch self {
        case .tooLong: "the listen address is longer than 300 bytes"
        case .bad(let text): "'\(text.prefix(64))' is not [ADDR:]PORT"
        case .badPort(let text): "'\(text)' is not a port from 0 to 65535 (0 picks a free one)"
        }
    }
}
