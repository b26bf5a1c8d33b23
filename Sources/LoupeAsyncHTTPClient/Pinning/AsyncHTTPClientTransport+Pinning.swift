import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Creates and owns a client that accepts only servers matching `pinning`; call ``shutdown()`` when done.
    ///
    /// Pin roots (or self-signed server certificates) to use them as the only trust anchors, with full verification
    /// including the host name: a test server on `127.0.0.1` needs a certificate with the SAN `IP:127.0.0.1`. Pin
    /// CA-issued server certificates to accept exactly those (see ``PinnedTrust``). The system trust store is never
    /// a fallback, so the client fails closed. A refused server throws a TLS ``TransportError`` whose message is the
    /// ``PinningError`` and records an ``ExchangeEventKind/pinningFailure`` event; it fails at once rather than
    /// re-dialling until the deadline. Public-key (SPKI) pins need a verification callback NIOSSL does not offer
    /// here: they are ignored beside certificate pins, and a policy of only SPKI pins throws.
    public init(
        pinning: PinningPolicy,
        configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
        options: Options = Options()
    ) throws {
        let trust = try PinnedTrust(pinning)
        self.init(configuration: trust.apply(to: configuration), options: options)
        PinnedClients.register(client, pinCount: trust.pinCount)
    }

    /// `configuration` changed to enforce `pinning`, for clients you build and own yourself.
    ///
    /// A transport made with `init(client:)` on such a client still refuses unpinned servers, but reports them as
    /// plain TLS failures: it cannot know the client was pinned.
    public static func pinnedConfiguration(
        _ pinning: PinningPolicy, base: HTTPClient.Configuration = HTTPClient.Configuration()
    ) throws -> HTTPClient.Configuration {
        try PinnedTrust(pinning).apply(to: base)
    }

    /// Maps a failed request to the error `send` throws; on a pinned client, a refused certificate becomes a
    /// ``PinningError`` recorded on the exchange.
    func failure(_ error: any Error, request: HTTPRequest, context: RequestContext) -> any Error {
        guard let pinCount = PinnedClients.pinCount(of: client) else { return TransportErrorMapping.map(error) }
        var failure: PinningError
        if let error = error as? PinningError {
            failure = error
        } else if let reason = Self.pinningReason(for: error) {
            failure = PinningError(reason, pinCount: pinCount, detail: String(describing: error))
        } else {
            return TransportErrorMapping.map(error)
        }
        failure.host = failure.host ?? request.url?.host
        failure.record(in: context)
        return failure.transportError
    }

    /// Whether `error` says the server's certificate was refused (rather than, say, a reset handshake).
    static func pinningReason(for error: any Error) -> PinningError.Reason? {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname { return .hostnameMismatch }
        guard case NIOSSLError.handshakeFailed(.sslError(let stack)) = error else { return nil }
        // BoringSSL reports a chain that leads to none of the trust anchors as CERTIFICATE_VERIFY_FAILED.
        return stack.contains { $0.description.contains("CERTIFICATE_VERIFY_FAILED") } ? .noMatchingPin : nil
    }
}
