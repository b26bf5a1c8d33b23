import Foundation
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
            "left: \(LinkListener.name(of: app)) from \(peer), \(stored) exchange(s) stored"
                + (reason.map { " (\($0))" } ?? "")
        case .drops(let app, let total): "dropped: \(LinkListener.name(of: app)) dropped \(total) exchange(s) in all"
        case .refused(let line): "refused: " + line
        }
    }
}

/// The viewer's side of the link: a TLS listener that takes many apps at once and writes what they send into a
/// store, each batch acknowledged once the store committed it.
///
/// Hostile peers are bounded: a connection that has not said a good hello within ``Settings/helloTimeout`` is
/// closed (a plain-TCP peer, a TLS handshake never finished, silence); a frame's length is checked before its
/// bytes are buffered; at most ``Settings/maxConnections`` connections are open at once; refusals are printed
/// ten per ten seconds at most. A slow store slows only the reads of the connections writing into it.
public final class LinkListener: Sendable {
    public struct Settings: Sendable {
        public var helloTimeout: Duration = .seconds(10)
        public var maxConnections = 512
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
        at address: ListenAddress, identity: LinkIdentity, store: any TraceStore, settings: Settings = Settings(),
        events: @escaping @Sendable (LinkListenerEvent) -> Void
    ) async throws -> LinkListener {
        if settings.insecureLoopback, !LinkAddress.isLoopback(address.host) {
            throw LinkListenerError.insecureNotLoopback(address.host)
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey))
        tls.minimumTLSVersion = .tlsv13
        let context: NIOSSLContext? = try settings.insecureLoopback ? nil : NIOSSLContext(configuration: tls)
        let shared = Shared(identity: identity, store: store, settings: settings, events: events)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let peer = child.remoteAddress.map(Self.describe) ?? "?"
                    guard shared.admit(child) else {
                        shared.refused("\(peer): over \(settings.maxConnections) connections at once")
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

    /// State shared by the listener's connections, each part under its own lock.
    final class Shared: Sendable {
        let identity: LinkIdentity
        let store: any TraceStore
        let settings: Settings
        let events: @Sendable (LinkListenerEvent) -> Void
        let counts = Mutex(Counts())
        let channels = Mutex([ObjectIdentifier: any Channel]())
        let linkedApps = Mutex([ObjectIdentifier: LinkHello]())
        /// The latest rule state of each linked app that takes rules.
        let ruleStates = Mutex([ObjectIdentifier: LinkRuleState]())
        let ruleListeners = Mutex<[@Sendable () -> Void]>([])
        let refusals = Mutex(RateLimitedLines())
        /// Store writes in progress, so ``LinkListener/stop()`` can wait for them.
        let writes = Mutex(0)
        /// One thread: batches from all connections are written one after another, as the store wants.
        let pool: NIOThreadPool

        init(identity: LinkIdentity, store: any TraceStore, settings: Settings,
             events: @escaping @Sendable (LinkListenerEvent) -> Void) {
            self.identity = identity
            self.store = store
            self.settings = settings
            self.events = events
            pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
        }

        deinit {
            pool.shutdownGracefully { _ in }
        }

        func admit(_ channel: any Channel) -> Bool {
            channels.withLock { open in
                guard open.count < settings.maxConnections else { return false }
                open[ObjectIdentifier(channel)] = channel
                return true
            }
        }

        func remove(_ channel: any Channel) {
            _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
            _ = linkedApps.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
            if ruleStates.withLock({ $0.removeValue(forKey: ObjectIdentifier(channel)) }) != nil { rulesChanged() }
        }

        /// The latest drop total of each app (by host, process and name): an app reports its total since it
        /// started on every connection, so a reconnecting app's total replaces its last one instead of adding to it.
        let dropTotals = Mutex([AppKey: Int]())

        struct AppKey: Hashable, Sendable {
            let host: String
            let pid: Int
            let app: String
            init(_ hello: LinkHello) { (host, pid, app) = (hello.host, hello.pid, hello.app) }
        }

        /// The sources by app, each with the order it first linked in.
        let sources = Mutex([AppKey: (order: Int, source: Source)]())

        func sourceLinked(_ app: LinkHello) {
            sources.withLock { sources in
                let key = AppKey(app)
                var entry = sources[key] ?? (sources.count, Source(app: app, connections: 0, goneSince: nil, dropped: 0))
                entry.source.app = app
                entry.source.connections += 1
                entry.source.goneSince = nil
                sources[key] = entry
            }
        }

        func sourceLeft(_ app: LinkHello, at date: Date = Date()) {
            sources.withLock { sources in
                guard var entry = sources[AppKey(app)] else { return }
                entry.source.connections = max(0, entry.source.connections - 1)
                if entry.source.connections == 0 { entry.source.goneSince = date }
                sources[AppKey(app)] = entry
            }
        }

        func reportDrops(_ total: Int, from app: LinkHello) {
            sources.withLock { $0[AppKey(app)]?.source.dropped = total }
            let added = dropTotals.withLock { totals -> Int in
                let previous = totals[AppKey(app)] ?? 0
                // Totals only grow; a smaller one (another process reusing the pid) starts a new count.
                let added = total >= previous ? total - previous : total
                totals[AppKey(app)] = total
                return added
            }
            counts.withLock { $0.droppedByApps += added }
        }

        func openChannels() -> [any Channel] { channels.withLock { Array($0.values) } }

        func refused(_ line: String) {
            counts.withLock { $0.refused += 1 }
            let now = ContinuousClock.now
            if let shown = refusals.withLock({ $0.admit(line, at: now) }) { events(.refused(shown)) }
        }

        /// One connection's batch waiting for its transaction, and the promise its ack waits on.
        struct PendingWrite: Sendable {
            var exchanges: [TraceExchange]
            var promise: EventLoopPromise<Void>
        }

        /// Batches of every connection waiting for the store's thread, written many to a transaction.
        let storeQueue = Mutex(LinkStoreQueue<PendingWrite>(maxExchanges: 4_096))

        /// Queues `batch` for the store's thread; the future completes on `eventLoop` once the transaction that
        /// holds it committed (or failed).
        /// `batch` holds their source already (``LinkSessionMachine`` sets it from the hello as it reads each one).
        func write(_ batch: [TraceExchange], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            writes.withLock { $0 += 1 }
            let count = batch.count
            let promise = eventLoop.makePromise(of: Void.self)
            let action = storeQueue.withLock { $0.enqueue(PendingWrite(exchanges: batch, promise: promise), count: count) }
            if action == .startWriter {
                pool.submit { [self] state in
                    guard case .active = state else {
                        for entry in storeQueue.withLock({ $0.takeAll() }) {
                            entry.batch.promise.fail(NIOThreadPoolError.ThreadPoolInactive())
                        }
                        return
                    }
                    runWriter()
                }
            }
            let future = promise.futureResult
            future.whenComplete { [self] result in
                writes.withLock { $0 -= 1 }
                if case .success = result { counts.withLock { $0.stored += count } }
            }
            return future
        }

        /// The store's thread: one transaction for everything queued, until the queue is empty.
        private func runWriter() {
            while let entries = storeQueue.withLock({ $0.nextWrite() }) {
                let exchanges = entries.count == 1 ? entries[0].batch.exchanges : entries.flatMap(\.batch.exchanges)
                do {
                    try store.write(exchanges)
                    settings.onStored?(exchanges.count)
                    for entry in entries { entry.batch.promise.succeed() }
                } catch {
                    guard entries.count > 1 else {
                        entries[0].batch.promise.fail(error)
                        continue
                    }
                    // One batch the store refuses must not fail the others': each alone then, as before batching.
                    for entry in entries {
                        do {
                            try store.write(entry.batch.exchanges)
                            settings.onStored?(entry.count)
                            entry.batch.promise.succeed()
                        } catch {
                            entry.batch.promise.fail(error)
                        }
                    }
                }
            }
        }

        func drainWrites() async {
            // Bounded: a store write is one transaction; give the last ones a few seconds at most.
            for _ in 0..<500 where writes.withLock({ $0 }) > 0 {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

/// One connection's driver: frames in, ``LinkSessionMachine`` decides, batches go to the store and are
/// acknowledged once stored. Reads pause while too many exchanges wait for the store.
final class LinkServerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = LinkFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let shared: LinkListener.Shared
    private let peer: String
    private var machine: LinkSessionMachine
    private var pending: [TraceExchange] = []
    private var writing = false
    private var heldRead = false
    private var stored = 0
    private var deadline: Scheduled<Void>?
    private var closeReason: String?
    /// The app this connection welcomed, so its source is marked gone however the connection ends.
    private var welcomedApp: LinkHello?

    init(shared: LinkListener.Shared, peer: String) {
        self.shared = shared
        self.peer = peer
        machine = LinkSessionMachine(secret: shared.identity.secret)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let timeout = shared.settings.helloTimeout
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout.timeAmount) {
            let (handler, context) = bound.value
            guard case .awaitingHello = handler.machine.state else { return }
            handler.shared.refused("\(handler.peer): no hello within \(timeout) (a TLS handshake never finished, or a silent peer)")
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        perform(machine.received(frame), context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        startWriting(context: context)
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        // Flow control: a viewer whose store is behind stops reading this app, and TCP slows the app's sends
        // (which its bounded buffer absorbs); other apps are not held up.
        if pending.count >= shared.settings.maxPendingPerConnection {
            heldRead = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? LinkProtocolError {
            perform(machine.failed(error), context: context)
            return
        }
        guard case .linked = machine.state else {
            if case .awaitingHello = machine.state {
                shared.refused("\(peer): \(Self.explain(error))")
                // A refused connection says nothing more: the peer gets the TLS alert.
                _ = machine.failed(.emptyFrame)
            }
            context.close(promise: nil)
            return
        }
        closeReason = Self.explain(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        // Whatever state the machine ended in (a refusal after the welcome closes it too), a welcomed app is gone.
        if let app = welcomedApp { shared.sourceLeft(app) }
        if case .linked(let app) = machine.state {
            shared.events(.left(peer: peer, app: app, stored: stored, reason: closeReason))
        }
        context.fireChannelInactive()
    }

    private func perform(_ action: LinkSessionMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .welcome(let app):
            deadline?.cancel()
            shared.counts.withLock { $0.linked += 1 }
            shared.linkedApps.withLock { $0[ObjectIdentifier(context.channel)] = app }
            shared.sourceLinked(app)
            welcomedApp = app
            shared.events(.linked(peer: peer, app: app))
            var welcome = LinkWelcome()
            welcome.rules = app.rules == true ? true : nil
            if let bytes = try? LinkFrameCodec.encode(.welcome(welcome)) {
                context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
            }
        case .store(let exchange):
            pending.append(exchange)
        case .drops(let total):
            if case .linked(let app) = machine.state {
                shared.reportDrops(total, from: app)
                shared.events(.drops(app: app, total: total))
            }
        case .refuse(let reason):
            shared.refused("\(peer): \(reason)")
            if let bytes = try? LinkFrameCodec.encode(.refuse(reason)) {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in bound.value.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .close(let line):
            closeReason = line
            context.close(promise: nil)
        case .ruleState(let state):
            shared.ruleStates.withLock { $0[ObjectIdentifier(context.channel)] = state }
            shared.rulesChanged()
        }
    }

    private func startWriting(context: ChannelHandlerContext) {
        guard !writing, !pending.isEmpty, case .linked = machine.state else { return }
        writing = true
        let batch = pending
        let count = batch.count
        pending = []
        pending.reserveCapacity(count)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        shared.write(batch, on: context.eventLoop).whenComplete { result in
            let (handler, context) = bound.value
            handler.writing = false
            switch result {
            case .success:
                handler.stored += count
                if context.channel.isActive, let bytes = try? LinkFrameCodec.encode(.ack(count)) {
                    context.writeAndFlush(handler.wrapOutboundOut(bytes), promise: nil)
                }
                if handler.heldRead, handler.pending.count < handler.shared.settings.maxPendingPerConnection {
                    handler.heldRead = false
                    context.read()
                }
                handler.startWriting(context: context)
            case .failure(let error):
                // Not acknowledged: the app sends these again to the next listener.
                handler.closeReason = "the store refused a batch: \(error)"
                context.close(promise: nil)
            }
        }
    }

    /// One line for a TLS or socket failure before the hello.
    static func explain(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") || text.contains("UNKNOWN_PROTOCOL")
            || text.contains("UNSUPPORTED_PROTOCOL") || text.contains("PACKET_LENGTH_TOO_LONG")
        {
            return "not TLS: a plain-TCP peer, or not a Loupe link"
        }
        if text.contains("CERTIFICATE") || text.contains("UNKNOWN_CA") || text.contains("BAD_CERT") {
            return "the app refused this listener's certificate: its link pins another fingerprint"
        }
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
            return "closed during the TLS handshake"
        }
        return "TLS failed: \(TerminalText.line(String(text.prefix(200))))"
    }
}

extension Duration {
    /// NIO's form of this duration, in whole nanoseconds.
    var timeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}
