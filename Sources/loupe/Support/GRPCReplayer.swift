import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Loupe
import LoupeGRPC
import LoupeReplay
import LoupeTrace

/// Recorded unary gRPC calls sent again (`loupe replay`, the TUI's `r`): through grpc-swift's HTTP/2 transport, in
/// plain text, to the recorded authority, recorded as replays by ``LoupeGRPCInterceptor``.
enum GRPCReplayer {
    /// The transport to the recorded peer (`127.0.0.1:50051`, `[::1]:50051`, `host:port`).
    static func transport(for exchange: TraceExchange) throws -> HTTP2ClientTransport.Posix {
        guard let components = URLComponents(string: exchange.url), let host = components.host, !host.isEmpty else {
            throw CommandFailure.badInput("cannot replay \(exchange.operation): the recorded peer \(exchange.url) has no host")
        }
        let port = components.port ?? 80
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let target: any ResolvableTarget
        if bare.contains(":") {
            target = .ipv6(address: bare, port: port)
        } else if bare.split(separator: ".").count == 4, bare.allSatisfy({ $0.isNumber || $0 == "." }) {
            target = .ipv4(address: bare, port: port)
        } else {
            target = .dns(host: bare, port: port)
        }
        return try HTTP2ClientTransport.Posix(target: target, transportSecurity: .plaintext)
    }

    /// Sends `exchange` again; the line to report, whether it ended `OK`, its status code, how long it took and the
    /// exchange it was recorded as.
    static func replay(_ exchange: TraceExchange, observer: any ClientObserver,
                       credentials: [(name: String, value: String)]) async throws
        -> (line: String, succeeded: Bool, code: Int, duration: Duration, replayID: UUID?) {
        do {
            _ = try GRPCUnaryReplay.call(for: exchange)
        } catch {
            throw CommandFailure.badInput("cannot replay \(exchange.operation): \(error.description)")
        }
        let outcome = try await GRPCUnaryReplay.replay(exchange, transport: try transport(for: exchange),
                                                       observer: observer, credentials: credentials)
        let seconds = Double(outcome.duration.components.seconds) + Double(outcome.duration.components.attoseconds) / 1e18
        let status = GRPCStatusName.name(outcome.code) + (outcome.message.isEmpty ? "" : ": \(outcome.message)")
        return ("replayed \(exchange.operation) → \(status) in \(Quantity.duration(seconds))", outcome.code == 0,
                outcome.code, outcome.duration, outcome.replayID)
    }
}
