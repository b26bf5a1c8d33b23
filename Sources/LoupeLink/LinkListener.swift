import Foundation
import Loupe
import LoupeTrace
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Why a listener would not start.
public enum LinkListenerError: Error, Equatable, CustomStringConvertible {
    case insecureNotLoopback(String)

    public var description: String {
        switch self {
        case .insecureNotLoopback(let host):
            "--insecure-loopback (plain TCP, no TLS) listens on loopback only: '\(TerminalText.line(String(host.prefix(64))))' "
                + "is not 127.0.0.1, ::1 or localhost"
        }
    }
}

/// What a listener reports, one line each for the collector's output (``LinkListener/Event/line``).
public enum LinkListenerEvent: Sendable, Equatable {
    /// An app linked.
    case linked(peer: String, app: LinkHello)
    /// A linked app left, after this many of its exchanges were stored on this connection.
    case left(peer: String, app: LinkHello, stored: Int, reason: String?)
    /// An app reports it dropped this many exchanges in all.
    case drops(app: LinkHello, total: Int)
    /// A peer was refused (rate-limited: `line` may say how many more were refused since the last one).
    case refused(String)

    /// The line to print.
    public var line: String {
        switch self {
        case .linked(let peer, let app): "linked: \(LinkListener.name(of: app)) from \(peer)"
        case .left(let peer, let app, let stored, let reason):
            "left: \(LinkListener.name(of: app)) from \(peer), \(Quantity.count(stored, "exchange")) stored"
                + (reason.map { " (\($0))" } ?? "")
        case .drops(let app, let total): "dropped: \(LinkListener.name(of: app)) dropped \(Quantity.count(total, "exchange")) in all"
        case .refused(let line): "refused: " + line
        }
    }
}

/// The viewer's side of the link: a TLS listener that takes many apps at once and writes what they send into a
/// store, each batch acknowledged once the store committed it.
///
/// Hostile peers are bounded: a connection that has not said a good hello within ``Settings/helloTimeout`` is
/// closed (a plain-TCP peer, a TLS handshake never finished, silence); a frame's length is checked before its
/// bytes are buffered; at most ``Settings/maxConnections`` connections are open at once, of which at most
/// ``Settings/maxUnproven`` have not proved the secret (the newest of those replaces the oldest, so idle ones
/// cannot keep apps out: ``LinkAdmission``); numbers from peers are ``LinkCount``s; bodies are capped as the
/// recorder caps them; refusals are printed ten per ten seconds at most. A slow store slows only the reads of the
/// connections writing into it, by count and by bytes.
public final class LinkListener: Sendable {
    public struct Settings: Sendable {
        /// The recorder's default body cap, made once.
        static let defaultBodyCap = NetworkTraceInspector.Configuration().bodyCap

        public var helloTimeout: Duration = .seconds(10)
        /// Connections open at once, linked apps and peers that have not said a hello together.
        public var maxConnections = 512
        /// Of those, how many may not have proved the secret yet: past it, the oldest of them is closed to make room
        /// for the newest (``LinkAdmission``), so idle connections cannot keep linked apps out.
        public var maxUnproven = 128
        /// The most body bytes stored per request or response an app sends: the recorder's cap (1 MiB), since a
        /// frame could carry more.
        public var bodyCap = Self.defaultBodyCap
        /// Bytes of exchanges read ahead of the store per connection before reads pause (with the count below).
        public var maxPendingBytesPerConnection = 16 << 20
        /// Exchanges read ahead of the store per connection before reads pause.
        public var maxPendingPerConnection = 2_000
        /// Plain TCP instead of TLS (`loupe listen --insecure-loopback`): allowed only on a loopback address, where
        /// no other machine can read or inject the bytes; the link printed is `loupe+tcp://`.
        public var insecureLoopback = false
        /// Called (on the store's thread) after each batch is committed, with its count: `loupe tui --listen` wakes
        /// its screen with it, so a row is drawn when it is stored, not at the next poll.
        public var onStored: (@Sendable (Int) -> Void)?

        public init() {}
    }

    /// Counts since start.
    public struct Counts: Sendable, Equatable {
        public var linked = 0
        public var stored = 0
        public var refused = 0
        /// The latest drop total each app reported, summed.
        public var droppedByApps = 0
    }

    /// Where the listener is bound (with the real port when 0 was asked).
    public let address: ListenAddress
    /// The string apps need.
    public let link: LinkAddress
    private let serverChannel: any Channel
    let shared: Shared

    /// Binds `address` with `identity` and writes received exchanges into `store`.
    ///
    /// Each exchange is stored with its ``TraceExchange/source``: the app that sent it, from its hello. `events` is
    /// called for every line worth printing, from the event loop (keep it short).
    public static func start(
        at address: ListenAddress, identity: LinkIdentity, store: any TraceStoreWriting, settings: Settings = Settings(),
        events: @escaping @Sendable (LinkListenerEvent) -> Void
    ) async throws -> LinkListener {
        if settings.insecureLoopback, !LinkAddress.isLoopback(address.host) {
            throw LinkListenerError.insecureNotLoopback(address.host)
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey))
        tls.minimumTLSVersion = .tlsv13
        tls.shutdownTimeout = LinkProtocol.tlsShutdownTimeout
        let context: NIOSSLContext? = try settings.insecureLoopback ? nil : NIOSSLContext(configuration: tls)
        let shared = Shared(identity: identity, store: store, settings: settings, events: events)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let peer = child.remoteAddress.map(Self.describe) ?? "?"
                    guard shared.admit(child) else {
                        shared.refused("\(peer): over \(settings.maxConnections) linked apps at once")
                        child.close(promise: nil)
                        return
                    }
                    let sync = child.pipeline.syncOperations
                    if let context { try sync.addHandler(NIOSSLServerHandler(context: context)) }
                    try sync.addHandler(ByteToMessageHandler(LinkFrameDecoder()))
                    try sync.addHandler(LinkServerHandler(shared: shared, peer: peer))
                    child.closeFuture.whenComplete { _ in shared.remove(child) }
                }
            }
            .bind(host: address.host, port: address.port).get()
        let port = channel.localAddress?.port ?? address.port
        let bound = ListenAddress(host: address.host, port: port)
        let shownHost = ["0.0.0.0", "::"].contains(address.host) ? LinkHello.localHostName() : address.host
        let link = try settings.insecureLoopback
            ? LinkAddress.plainLoopback(secret: identity.secret, host: shownHost, port: port)
            : identity.link(host: shownHost, port: port)
        return LinkListener(address: bound, link: link,
                            serverChannel: channel, shared: shared)
    }

    private init(address: ListenAddress, link: LinkAddress, serverChannel: any Channel, shared: Shared) {
        self.address = address
        self.link = link
        self.serverChannel = serverChannel
        self.shared = shared
    }

    /// What happened so far.
    public var counts: Counts { shared.counts.withLock { $0 } }

    /// The state shared by the connections, for tests that drive it directly.
    var sharedForTests: Shared { shared }

    /// Apps linked right now.
    public var linkedApps: [LinkHello] { shared.linkedApps.withLock { Array($0.values) } }

    /// One app that linked since the listener started (by host, process and name): the title bar's source.
    public struct Source: Sendable, Equatable {
        /// Its hello (without the secret).
        public var app: LinkHello
        /// Its connections open now (0: gone).
        public var connections: Int
        /// When its last connection closed, while it has none.
        public var goneSince: Date?
        /// The drop total it last reported.
        public var dropped: Int
    }

    /// Every app that linked, in the order they first did.
    public var sources: [Source] {
        let entries = shared.sources.withLock { Array($0.values) }
        return entries.sorted { first, second in first.order < second.order }.map { entry in entry.source }
    }

    /// Stops accepting, closes every connection, and returns once the last batch in progress is stored.
    public func stop() async {
        try? await serverChannel.close()
        for child in shared.openChannels() { try? await child.close() }
        await shared.drainWrites()
    }

    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v4: "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        case .unixDomainSocket: "unix socket"
        }
    }

    /// `app (pid N on host)`, control characters made visible: names come from the peer.
    static func name(of app: LinkHello) -> String {
        TerminalText.line("\(app.app) (pid \(app.pid) on \(app.host))")
    }
}
