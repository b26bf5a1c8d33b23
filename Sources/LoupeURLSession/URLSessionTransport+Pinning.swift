#if canImport(Security) && canImport(CryptoKit)
import Foundation
import Loupe

extension URLSessionTransport {
    /// A transport whose session refuses every server that matches none of `pinning`'s pins.
    ///
    /// SPKI SHA-256 pins (list backups for the keys you will rotate to) and certificate pins are both checked in
    /// the server-trust challenge, after the chain validated for the host. A refused server throws a TLS
    /// `TransportError` whose message is the `PinningError` (with the presented keys' `sha256/…` digests) and
    /// records an `ExchangeEventKind.pinningFailure` event. Apple platforms only: on Linux, URLSession offers no
    /// server-trust challenge, so use `AsyncHTTPClientTransport(pinning:)`.
    public convenience init(configuration: URLSessionConfiguration = .ephemeral, pinning: PinningPolicy) {
        self.init(configuration: configuration, serverTrust: ServerTrustPinning(policy: pinning))
    }
}
#endif
