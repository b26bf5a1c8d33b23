import ArgumentParser
import Foundation

/// A TCP port typed for a listener (`--port`, 0 picks a free one), and the check for ports inside URLs.
struct PortArgument: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    let value: Int

    var description: String { String(value) }

    init(integerLiteral value: Int) { self.value = value }

    /// Reads 0...65535.
    static func parse(_ text: String) throws(ArgumentValueError) -> PortArgument {
        PortArgument(integerLiteral: try NumberArgument.whole(
            text, in: 0...65_535, expected: "a port from 0 to 65535 (0 picks a free one)"))
    }

    /// Why `url`'s explicit port cannot be connected to (0 or above 65535), or nil when it can.
    ///
    /// Foundation parses any digits as a port; the socket layer traps on one above 65535.
    static func problem(in url: URL) -> String? {
        guard let port = url.port else { return nil }
        return (1...65_535).contains(port) ? nil : "port \(port) is out of range (1 to 65535)"
    }
}

extension PortArgument: ExpressibleByArgument {
    init?(argument: String) {
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }
}
