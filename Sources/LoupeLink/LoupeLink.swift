import Crypto
import Foundation
import Logging
import LoupeRules
import LoupeTrace
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// The app's side of the live link: streams what the recorder stores to a listener (`loupe listen`,
/// `loupe tui --listen`) over TLS pinned by the fingerprint in the link string.
///
/// ```swift
/// let link = try LoupeLink(LinkAddress(parsing: "loupe://…"))        // or LoupeLink.fromEnvironment()
/// let inspector = NetworkTraceInspector(store: store, configuration: .init(forwarders: [link]))
/// ```
/// It never blocks or fails a request: exchanges wait in a buffer bounded in bytes (the oldest not yet written is
/// dropped when it is full, and counted; the count goes to the viewer when it is back), connecting happens in the
/// background with backoff and jitter, and a link that cannot connect says so once through swift-log, not once per
/// request. Exchanges are sent again when a connection is lost before the viewer acknowledged them.
public final class LoupeLink: TraceForwarding {
    public struct Configuration: Sendable {
        /// The most bytes of encoded exchanges waiting for the viewer. Default 16 MiB.
        public var bufferBytes: Int
        public var backoff: LinkBackoff
        /// How long one connection may take to connect and be welcomed. Default 10 s.
        public var connectTimeout: Duration
        /// How long ``LoupeLink/finish()`` waits for the viewer to acknowledge what is buffered (on ``clock``), while
        /// the link is up or its first connection is under way. Default 3 s.
        public var drainTimeout: Duration
        /// The app name in the hello (default: the process name).
        public var appName: String?
        public var logger: Logger
        /// Times the waits between connection attempts (inject a manual clock in tests).
        public var clock: any Clock<Duration>
        /// A number in `0..<1` for the backoff's jitter.
        public var random: @Sendable () -> Double
        /// The app's rules, when it lets the viewer act on it (LinkRulesMessages.swift): its hello says so.
        public var rules: RuleBook?

        public init(
            bufferBytes: Int = 16 << 20, backoff: LinkBackoff = LinkBackoff(), connectTimeout: Duration = .seconds(10),
            drainTimeout: Duration = .seconds(3), appName: String? = nil,
            logger: Logger = Logger(label: "loupe.link"), clock: any Clock<Duration> = ContinuousClock(),
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.bufferBytes = max(1, bufferBytes)
            self.backoff = backoff
            self.connectTimeout = connectTimeout
            self.drainTimeout = drainTimeout
            self.appName = appName
            self.logger = logger
            self.clock = clock
            self.random = random
        }
    }

    /// Counts since the link started.
    public struct Counts: Sendable, Equatable {
        /// Exchanges handed to the link.
        public var sent: Int
        /// Exchanges the viewer stored and acknowledged.
        public var acknowledged: Int
        /// Exchanges dropped (buffer full, or too large for it).
        public var dropped: Int
        /// Exchanges still waiting for a viewer.
        public var pending: Int
        /// Connections that were welcomed.
        public var links: Int
    }

    public let address: LinkAddress
    public let configuration: Configuration
    let core: Core
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Starts linking to `address` in the background.
    public init(_ address: LinkAddress, configuration: Configuration = Configuration()) throws {
        self.address = address
        self.configuration = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        // The certificate is self-signed: the custom callback below replaces chain and name checks with the pin.
        tls.certificateVerification = .noHostnameVerification
        tls.minimumTLSVersion = .tlsv13
        tls.shutdownTimeout = LinkProtocol.tlsShutdownTimeout
        // A `loupe+tcp://` link (loopback only, checked when it was parsed) has no TLS at all.
        core = Core(address: address, configuration: configuration,
                    context: try address.isPlainTCP ? nil : NIOSSLContext(configuration: tls))
        let core = core
        if let book = configuration.rules { attachRules(book) }
        let executor = EventLoopTaskExecutor(MultiThreadedEventLoopGroup.singleton.next())
        task.withLock { $0 = Task.detached(executorPreference: executor) { await core.run() } }
    }

    /// The link in `LOUPE_LINK`, started; nil when the variable is unset or empty.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        configuration: Configuration = Configuration()
    ) throws -> LoupeLink? {
        guard let address = try LinkAddress.fromEnvironment(environment) else { return nil }
        return try LoupeLink(address, configuration: configuration)
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    public var counts: Counts {
        let links = core.linkCount.withLock { $0 }
        return core.outbox.withLock {
            Counts(sent: $0.accepted, acknowledged: $0.acknowledged, dropped: $0.dropped, pending: $0.pending,
                   links: links)
        }
    }

    // MARK: TraceForwarding

    public func forward(_ exchanges: [TraceExchange]) {
        // Each frame written by hand into one buffer, outside the outbox's lock. An exchange over the
        // frame limit (a body cap raised past 3 MiB or so) would be refused by every listener and sent again
        // forever: it is dropped and counted here instead.
        let frames = exchanges.map { exchange -> ByteBuffer? in
            guard let frame = LinkExchangeJSON.frame(exchange), frame.readableBytes - 4 <= LinkProtocol.maxFrameLength
            else { return nil }
            return frame
        }
        core.outbox.withLock { outbox in
            for frame in frames {
                if let frame { outbox.append(frame) } else { outbox.countUnsendable() }
            }
        }
        core.wake()
    }

    /// Waits up to ``Configuration/drainTimeout`` (on the configuration's clock) for the viewer to acknowledge what
    /// is buffered, then closes the link. It does not wait for a link that is down: one whose last connection ended
    /// (refused, lost, or never welcomed) without a new one welcomed since, so a listener that is not there costs an
    /// exiting command nothing.
    public func finish() async {
        let (clock, drain, core) = (configuration.clock, configuration.drainTimeout, core)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(for: drain) }
            group.addTask {
                // Polled: acks and the connection's end come from the event loop, which has no waiter to wake.
                while core.isDraining, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            }
            await group.next()
            group.cancelAll()
        }
        let running = task.withLock { task in defer { task = nil }; return task }
        running?.cancel()
        core.closeConnection()
        await running?.value
    }

    /// The connection loop and what the channel handler shares with it.
    final class Core: Sendable {
        let address: LinkAddress
        let configuration: Configuration
        let context: NIOSSLContext?
        let outbox: Mutex<LinkOutbox>
        let linkCount = Mutex(0)
        /// Connection attempts that ended (for tests of the backoff on a manual clock).
        let attempts = Mutex(0)
        let current = Mutex<(any Channel, NIOLoopBound<LinkClientHandler>)?>(nil)
        /// Why the current connection ended, as the handler saw it.
        let lastFailure = Mutex<String?>(nil)
        /// The app's rules, when it lets the viewer act on it (``LoupeLink/attachRules(_:)``).
        let rules = Mutex<RuleBook?>(nil)
        /// The rule state changed since it was last sent.
        let ruleStateDirty = Mutex(false)
        /// Counts connections, so each viewer's rules are its own origin.
        let viewers = Mutex(0)
        /// Where the viewer's rule commands are applied, in the order they came: a serial queue of its own, off
        /// the event loops the app's HTTP client may share (a put of many rules parses and indexes them all).
        let ruleCommands = DispatchQueue(label: "loupe.link.rule-commands")

        /// The last connection ended and none was welcomed since: ``LoupeLink/finish()`` does not wait for it.
        let isDown = Mutex(false)

        /// Something waits for the viewer, and a viewer may still take it.
        var isDraining: Bool {
            !isDown.withLock { $0 } && outbox.withLock { $0.pending } > 0
        }

        init(address: LinkAddress, configuration: Configuration, context: NIOSSLContext?) {
            self.address = address
            self.configuration = configuration
            self.context = context
            outbox = Mutex(LinkOutbox(capacity: configuration.bufferBytes))
        }

        /// Tells the current connection that there is something to write.
        func wake() {
            guard let (channel, handler) = current.withLock({ $0 }) else { return }
            channel.eventLoop.execute { handler.value.pump() }
        }

        func closeConnection() {
            current.withLock { $0 }?.0.close(promise: nil)
        }

        func run() async {
            var machine = LinkConnectionMachine(backoff: configuration.backoff)
            let logger = configuration.logger
            while !Task.isCancelled {
                lastFailure.withLock { $0 = nil }
                var welcomed = false
                var lasted = Duration.zero
                do {
                    let handler = try await connect()
                    lasted = try await configuration.clock.measure { welcomed = try await handler.closed.get() }
                } catch {
                    lastFailure.withLock { $0 = $0 ?? Self.explain(error) }
                }
                isDown.withLock { $0 = true }
                current.withLock { $0 = nil }
                outbox.withLock { $0.connectionLost() }
                if Task.isCancelled { break }
                let why = lastFailure.withLock { $0 } ?? "the listener closed the link"
                let delay: Duration
                switch machine.ended(welcomed: welcomed, lasted: lasted, reason: why, unit: configuration.random()) {
                case .logOutageAndWait(let reason, let wait):
                    // Once per outage, not per attempt or request.
                    logger.warning("loupe link: cannot reach \(address.redacted): \(reason); retrying in the background")
                    delay = wait
                case .wait(let wait):
                    delay = wait
                }
                attempts.withLock { $0 += 1 }
                do { try await configuration.clock.sleep(for: delay) } catch { break }
            }
        }

        /// Connects and sends the hello; returns once the channel is up (the handler reports its end).
        private func connect() async throws -> LinkClientHandler.Ending {
            let pinned = address.fingerprint
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(configuration.connectTimeout.timeAmount)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let context, let pinned { try sync.addHandler(makeTLS(context, pinned: pinned)) }
                        let handler = LinkClientHandler(core: self)
                        try sync.addHandler(ByteToMessageHandler(LinkFrameDecoder()))
                        try sync.addHandler(handler)
                        current.withLock { $0 = (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop)) }
                    }
                }
                .connect(host: address.host, port: address.port).get()
            return try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: LinkClientHandler.self).ending
            }.get()
        }

        /// TLS that accepts exactly the pinned certificate: its SHA-256, not a chain or a name.
        private func makeTLS(_ context: NIOSSLContext, pinned: CertificateFingerprint) throws -> NIOSSLClientHandler {
            try NIOSSLClientHandler(context: context, serverHostname: nil) { [self] certificates, promise in
                guard let leaf = certificates.first, let der = try? leaf.toDERBytes(),
                      let seen = CertificateFingerprint(bytes: Array(SHA256.hash(data: der)))
                else {
                    lastFailure.withLock { $0 = "the listener sent no certificate" }
                    promise.succeed(.failed)
                    return
                }
                guard seen.matches(pinned) else {
                    lastFailure.withLock {
                        $0 = "the listener's certificate is sha256:\(seen.hex), the link pins sha256:\(pinned.hex)"
                    }
                    promise.succeed(.failed)
                    return
                }
                promise.succeed(.certificateVerified)
            }
        }

        static func explain(_ error: any Error) -> String {
            if let error = error as? LinkClientError { return error.description }
            if let error = error as? LinkProtocolError { return error.description }
            if let error = error as? NIOSSLError, case .uncleanShutdown = error {
                return "the listener went away without closing the link (killed?)"
            }
            return String(describing: error)
        }
    }
}
