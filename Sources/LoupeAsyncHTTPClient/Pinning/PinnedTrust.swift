import AsyncHTTPClient
import Foundation
import Loupe
import NIOCore
import NIOSSL

/// How an AsyncHTTPClient enforces a ``PinningPolicy``, decided once when the pinned transport is made.
///
/// BoringSSL (through NIOSSL) accepts only self-issued certificates as trust anchors: it has no partial-chain
/// option, and NIOSSL gives AsyncHTTPClient no verification callback. So a policy is enforced one of two ways:
/// - **anchors**: every pin is self-issued (a root, or a self-signed server certificate). The pins become the only
///   trust roots, with full verification, host name included.
/// - **exact certificates**: every pin is CA-issued (a server's own certificate). BoringSSL's chain check, which
///   could only consult the system store, is replaced by an exact match of the certificate the server presents,
///   checked on each new connection before any request uses it; the handshake still proves the server holds that
///   certificate's key, and the validity period is checked. An intermediate never matches here: pin its root.
///
/// A policy mixing both kinds is refused rather than half enforced.
struct PinnedTrust: Sendable {
    enum Mode: Sendable {
        case anchors([NIOSSLCertificate])
        case exactCertificates(Set<[UInt8]>)
    }

    let mode: Mode
    let pinCount: Int

    init(_ policy: PinningPolicy) throws {
        let pins = policy.pins.filter { $0.certificateDER != nil }
        pinCount = pins.count
        let certificates = try pins.enumerated().map { index, pin in
            do {
                return try NIOSSLCertificate(bytes: Array(pin.certificateDER!), format: .der)
            } catch {
                throw PinningError(.invalidPin, pinCount: pins.count, detail: "pin \(index + 1) is not a certificate: \(error)")
            }
        }
        let selfIssued = pins.filter { $0.isSelfIssued == true }.count
        if certificates.isEmpty {
            throw PinningError(.unsupportedPins, pinCount: policy.pins.count, detail:
                "AsyncHTTPClient enforces certificate pins only; pin a certificate (PEM or DER) instead of a key hash")
        } else if selfIssued == certificates.count {
            mode = .anchors(certificates)
        } else if selfIssued == 0 {
            mode = .exactCertificates(Set(pins.map { Array($0.certificateDER!) }))
        } else {
            throw PinningError(.unsupportedPins, pinCount: pins.count, detail:
                "AsyncHTTPClient cannot mix self-issued pins (roots) with CA-issued pins (server certificates) in one policy")
        }
    }

    /// `configuration` changed to enforce the pins.
    func apply(to configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var configuration = configuration
        var tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        tls.additionalTrustRoots = []  // extra roots would widen trust beyond the pins
        switch mode {
        case .anchors(let certificates):
            tls.trustRoots = .certificates(certificates)
            tls.certificateVerification = .fullVerification
        case .exactCertificates:
            tls.certificateVerification = .none
            let http1 = configuration.http1_1ConnectionDebugInitializer, http2 = configuration.http2ConnectionDebugInitializer
            configuration.http1_1ConnectionDebugInitializer = { channel in verify(channel, then: http1) }
            configuration.http2ConnectionDebugInitializer = { channel in verify(channel, then: http2) }
        }
        configuration.tlsConfiguration = tls
        // A refused certificate is not transient: fail the request now instead of re-dialling until its deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Checks the connection's certificate, then runs the initializer the caller had configured, if any.
    private func verify(_ channel: any Channel, then next: (@Sendable (any Channel) -> EventLoopFuture<Void>)?) -> EventLoopFuture<Void> {
        channel.nioSSL_peerCertificate()
            .flatMapThrowing { try check($0, now: time(nil)) }
            .flatMap { next?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
    }

    /// Throws unless `certificate` is one of the exact pins and within its validity period.
    func check(_ certificate: NIOSSLCertificate?, now: time_t) throws {
        guard case .exactCertificates(let pinned) = mode else { return }
        guard let certificate else {
            throw PinningError(.noMatchingPin, pinCount: pinCount, detail: "the server presented no certificate")
        }
        guard pinned.contains(try certificate.toDERBytes()) else {
            throw PinningError(.noMatchingPin, pinCount: pinCount, detail: "the server's certificate \(certificate) is not pinned")
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            throw PinningError(.chainInvalid, pinCount: pinCount, detail: "the pinned certificate is outside its validity period")
        }
    }
}
