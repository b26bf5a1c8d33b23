import Foundation
import Logging
import Loupe
import LoupeQuery
import LoupeTrace
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing
@testable import LoupeLink

/// The real listener on 127.0.0.1 and the real app side, over TLS: delivery, reconnection, and every hostile peer
/// refused with one line on each side, in bounded time.
@Suite(.serialized) struct LinkLoopbackTests {
    /// A listener on a free loopback port with a fresh identity, its events kept.
    final class Harness: Sendable {
        let folder: String
        let identity: LinkIdentity
        let store: InMemoryTraceStore
        let listener: LinkListener
        let box: EventBox

        init(port: Int = 0, settings: LinkListener.Settings = LinkListener.Settings(), folder: String? = nil) async throws {
            let folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString)").path
            self.folder = folder
            identity = try LinkIdentity.loadOrCreate(in: folder)
            let (box, store) = (EventBox(), InMemoryTraceStore())
            (self.box, self.store) = (box, store)
            listener = try await LinkListener.start(
                at: ListenAddress(host: "127.0.0.1", port: port), identity: identity, store: store, settings: settings,
                events: { box.add($0.line) })
        }


        var lines: [String] { box.lines.withLock { $0 } }

        func link(secret: String? = nil, fingerprint: CertificateFingerprint? = nil, port: Int? = nil) throws -> LinkAddress {
            try LinkAddress(secret: secret ?? identity.secret, host: "127.0.0.1", port: port ?? listener.address.port,
                            fingerprint: fingerprint ?? identity.fingerprint)
        }
    }

    final class EventBox: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// Log lines the link writes, for "says so once".
    final class LogBox: Sendable {
        let lines = Mutex<[String]>([])
    }

    struct CollectingHandler: LogHandler {
        let box: LogBox
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            box.lines.withLock { $0.append("\(level): \(message)") }
        }
    }

    static func configuration(_ logs: LogBox, bufferBytes: Int = 1 << 20, drain: Duration = .seconds(5))
        -> LoupeLink.Configuration
    {
        LoupeLink.Configuration(
            bufferBytes: bufferBytes, backoff: LinkBackoff(initial: .milliseconds(20), maximum: .milliseconds(100)),
            connectTimeout: .seconds(5), drainTimeout: drain, appName: "tester",
            logger: Logger(label: "test") { _ in CollectingHandler(box: logs) })
    }

    static func exchanges(_ count: Int) -> [TraceExchange] {
        (0..<count).map { index in
            TraceExchange(id: UUID(), operation: "op\(index)", method: "GET", url: "http://127.0.0.1/\(index)",
                          startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                          endedAt: Date(timeIntervalSince1970: 1_700_000_001 + Double(index)), outcome: .success,
                          status: 200, events: [TraceEvent(kind: .retryScheduled, at: Date(), message: "r")])
        }
    }

    /// Polls `condition` for up to `seconds` (these tests cross real sockets). 60 s, not 10: inside the whole suite
    /// (238 suites started at once on 2 cores) the link's task and this poll wait their turn on the cooperative pool,
    /// and a 10 s deadline expired there (seen twice in four runs) while each suite alone passes in about 1 s.
    static func eventually(_ seconds: Double = 120, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            // The listener and the link run on their own event loops across a real TLS socket: nothing in-process
            // signals a commit on the other side, so the test polls, bounded by the deadline.
            try? await Task.sleep(for: .milliseconds(10))  // a poll across a real TLS socket: no event says when
        }
        return try condition()
    }

    @Test func everyExchangeArrivesStampedWithItsSourceAndAcknowledged() async throws {
        let harness = try await Harness()
        let logs = LogBox()
        let link = try LoupeLink(try harness.link(), configuration: Self.configuration(logs))
        let sent = Self.exchanges(300)
        for chunk in stride(from: 0, to: 300, by: 50) { link.forward(Array(sent[chunk..<chunk + 50])) }
        #expect(await Self.eventually { link.counts.acknowledged == 300 }, "\(link.counts)")
        await link.finish()
        let stored = try harness.store.exchanges(matching: nil, limit: 1000)
        #expect(Set(stored.map(\.id)) == Set(sent.map(\.id)))
        let source = TraceSource(app: "tester", host: LinkHello.localHostName(), pid: Int(getpid()))
        #expect(stored.allSatisfy { $0.source == source && $0.events.count == 1 })
        #expect(link.counts == LoupeLink.Counts(sent: 300, acknowledged: 300, dropped: 0, pending: 0, links: 1))
        #expect(await Self.eventually { harness.lines.contains { $0.hasPrefix("left: tester") } })
        #expect(harness.lines.first?.hasPrefix("linked: tester (pid \(getpid()) on ") == true)
        await harness.listener.stop()
    }

    @Test func aListenerRestartedOnTheSamePortGetsWhatWasWaitingAndTheDropCount() async throws {
        let first = try await Harness()
        let port = first.listener.address.port
        let logs = LogBox()
        let link = try LoupeLink(try first.link(), configuration: Self.configuration(logs, bufferBytes: 20_000))
        link.forward(Self.exchanges(5))
        #expect(await Self.eventually { link.counts.acknowledged == 5 })
        await first.listener.stop()
        // Nobody listening: these wait, the oldest dropped once the buffer is full; requests never wait.
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<10 { link.forward(Self.exchanges(10)) } }
        #expect(elapsed < .seconds(1))
        #expect(await Self.eventually { logs.lines.withLock { $0.contains { $0.contains("cannot reach") } } })
        let dropped = link.counts.dropped
        #expect(dropped > 0, "100 exchanges do not fit in 20 kB")
        let second = try await Harness(port: port, folder: first.folder)
        #expect(await Self.eventually { link.counts.pending == 0 })
        await link.finish()
        let counts = link.counts
        #expect(counts.acknowledged + counts.dropped == counts.sent)
        #expect(try first.store.count() + second.store.count() == counts.acknowledged)
        #expect(await Self.eventually { second.lines.contains { $0 == "dropped: tester (pid \(getpid()) on \(LinkHello.localHostName())) dropped \(Quantity.count(dropped, "exchange")) in all" } })
        let warnings = logs.lines.withLock { $0.filter { $0.contains("cannot reach") } }
        #expect(warnings.count == 1, "one line for the outage, not one per attempt: \(warnings)")
        await second.listener.stop()
    }

    @Test func aWrongSecretIsRefusedOnBothSides() async throws {
        let harness = try await Harness()
        let logs = LogBox()
        let link = try LoupeLink(try harness.link(secret: "ffffffffffffffffffff"),
                                configuration: Self.configuration(logs, drain: .milliseconds(100)))
        link.forward(Self.exchanges(1))
        #expect(await Self.eventually { harness.lines.contains { $0.hasPrefix("refused: 127.0.0.1:") && $0.hasSuffix(": wrong secret") } })
        #expect(await Self.eventually { logs.lines.withLock { $0.contains { $0.contains("the listener refused the link: wrong secret") } } })
        await link.finish()
        #expect(try harness.store.count() == 0)
        await harness.listener.stop()
    }

    @Test func aWrongFingerprintIsRefusedOnBothSides() async throws {
        let harness = try await Harness()
        let logs = LogBox()
        let other = CertificateFingerprint(bytes: [UInt8](repeating: 7, count: 32))!
        let link = try LoupeLink(try harness.link(fingerprint: other),
                                configuration: Self.configuration(logs, drain: .milliseconds(100)))
        link.forward(Self.exchanges(1))
        #expect(await Self.eventually {
            logs.lines.withLock { $0.contains { $0.contains("the listener's certificate is sha256:\(harness.identity.fingerprint.hex), the link pins sha256:\(other.hex)") } }
        })
        #expect(await Self.eventually { harness.lines.contains { $0.contains("the app refused this listener's certificate") } })
        await link.finish()
        #expect(link.counts.acknowledged == 0)
        await harness.listener.stop()
    }

    @Test func aPlainTCPPeerIsRefused() async throws {
        let harness = try await Harness()
        let answer = try await RawPeer.plain(port: harness.listener.address.port, send: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(await Self.eventually { harness.lines.contains { $0.contains("not TLS") } })
        #expect(answer.count < 1024, "at most a TLS alert comes back")
        await harness.listener.stop()
    }

    /// The peer reads until the listener closes, so without the listener's deadline this test runs into its time
    /// limit; no wall-clock bound, as the whole suite on 2 cores can keep a task waiting for the pool for many seconds.
    @Test(.timeLimit(.minutes(5)))
    func aPeerThatNeverFinishesTheHandshakeIsClosedInTime() async throws {
        var settings = LinkListener.Settings()
        settings.helloTimeout = .milliseconds(300)
        let harness = try await Harness(settings: settings)
        _ = try await RawPeer.plain(port: harness.listener.address.port, send: [0x16, 0x03, 0x01])
        #expect(await Self.eventually { harness.lines.contains { $0.contains("no hello within") } })
        await harness.listener.stop()
    }

    @Test(arguments: [
        ("ffffffff", "a frame of 4294967295 bytes is over the limit of 65536"),
        ("00010001", "a frame of 65537 bytes is over the limit of 65536"),
        ("00000001ee", "unknown message type 0xee"),
        ("00000003017b7d", "a malformed hello message"),
        ("00000009420000000000000001", "an ack message where a hello was expected"),
        ("0000000141", "a malformed welcome message"),
    ])
    func hostileFramesInsideTLSAreRefusedWithAReason(hex: String, reason: String) async throws {
        let harness = try await Harness()
        let answer = try await RawPeer.tls(port: harness.listener.address.port, send: LinkFrameCodecTests.buffer(hex: hex))
        var received = ByteBuffer(bytes: answer)
        let frame = try LinkFrameCodec.next(from: &received)
        guard case .refuse(let text) = frame else {
            Issue.record("expected a refusal, got \(String(describing: frame))")
            return
        }
        #expect(text.contains(reason))
        #expect(await Self.eventually { harness.lines.contains { $0.contains(reason) } })
        #expect(try harness.store.count() == 0)
        await harness.listener.stop()
    }

    /// Past the limit, the oldest connection without a hello makes room (issue 44, item 8: refusing the newest let
    /// idle connections keep every app out).
    @Test func connectionsBeyondTheLimitCloseTheOldestIdleOne() async throws {
        var settings = LinkListener.Settings()
        settings.maxConnections = 2
        let harness = try await Harness(settings: settings)
        let port = harness.listener.address.port
        let group = MultiThreadedEventLoopGroup.singleton
        let idle = try await (0..<2).asyncMap { _ in
            try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        }
        #expect(await Self.eventually { harness.listener.counts.refused == 0 })
        let extra = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        #expect(await Self.eventually { !idle[0].isActive })
        #expect(extra.isActive && idle[1].isActive)
        #expect(await Self.eventually { harness.lines.contains { $0.contains("no hello yet, closed to make room for a newer connection") } }, "\(harness.lines)")
        try? await extra.close()
        for channel in idle { try? await channel.close() }
        await harness.listener.stop()
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}

/// A client that speaks raw bytes to the listener: plain TCP, or TLS without the link's protocol.
enum RawPeer {
    /// Sends `bytes` over plain TCP and returns what comes back until the listener closes.
    static func plain(port: Int, send bytes: [UInt8]) async throws -> [UInt8] {
        try await exchange(port: port, bytes: ByteBuffer(bytes: bytes), tls: false)
    }

    /// Sends `bytes` inside TLS (trusting any certificate) and returns what comes back until the listener closes.
    static func tls(port: Int, send bytes: ByteBuffer) async throws -> [UInt8] {
        try await exchange(port: port, bytes: bytes, tls: true)
    }

    private static func exchange(port: Int, bytes: ByteBuffer, tls: Bool) async throws -> [UInt8] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(bytes)
            var received: [UInt8] = []
            do {
                for try await chunk in inbound { received += chunk.readableBytesView }
            } catch {
                // The listener's close may end TLS uncleanly; what arrived before it is the answer.
            }
            return received
        }
    }
}

extension LinkLoopbackTests {
    /// An exchange too large for a frame is dropped and counted by the app, not sent to be refused again and again.
    @Test func anExchangeOverTheFrameLimitIsDroppedByTheApp() async throws {
        let harness = try await Harness()
        let logs = LogBox()
        let link = try LoupeLink(try harness.link(), configuration: Self.configuration(logs, bufferBytes: 64 << 20))
        var huge = Self.exchanges(1)[0]
        huge.responseBody = TraceBody(data: Data(count: LinkProtocol.maxFrameLength), size: LinkProtocol.maxFrameLength,
                                      isTruncated: false)
        link.forward([huge] + Self.exchanges(2))
        #expect(await Self.eventually { link.counts.acknowledged == 2 })
        await link.finish()
        #expect(link.counts.dropped == 1 && link.counts.sent == 3)
        #expect(harness.listener.counts.refused == 0)
        await harness.listener.stop()
    }
}

/// A listener that answers every connection with the same bytes inside TLS (with the real identity, so the app's
/// pin passes): the app's side of the hostile-peer tests.
final class HostileListener: Sendable {
    let channel: any Channel

    init(identity: LinkIdentity, answer: [UInt8]) async throws {
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)], privateKey: .privateKey(identity.privateKey)))
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try child.pipeline.syncOperations.addHandler(Answer(bytes: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    var port: Int { channel.localAddress?.port ?? 0 }

    final class Answer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let bytes: [UInt8]
        init(bytes: [UInt8]) { self.bytes = bytes }
        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
            context.fireChannelActive()
        }
    }
}

extension LinkLoopbackTests {
    @Test(arguments: [
        ("ffffffff", "a frame of 4294967295 bytes is over the limit of 65536"),
        ("00000001ee", "unknown message type 0xee"),
        ("000000164370726f746f636f6c20322c20746869732069732031", "the listener refused the link: protocol 2, this is 1"),
        ("00000009420000000000000001", "an ack message where a welcome was expected"),
        ("000000014141", "a malformed welcome message"),
    ])
    func aHostileListenerIsRefusedByTheAppWhichKeepsItsExchanges(hex: String, reason: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString)").path
        let identity = try LinkIdentity.loadOrCreate(in: folder)
        let bytes = LinkFrameCodecTests.buffer(hex: hex).readableBytesView.map { $0 }
        let hostile = try await HostileListener(identity: identity, answer: bytes)
        let logs = LogBox()
        let address = try LinkAddress(secret: identity.secret, host: "127.0.0.1", port: hostile.port,
                                      fingerprint: identity.fingerprint)
        let link = try LoupeLink(address, configuration: Self.configuration(logs, drain: .milliseconds(50)))
        link.forward(Self.exchanges(3))
        #expect(await Self.eventually { logs.lines.withLock { $0.contains { $0.contains(reason) } } })
        await link.finish()
        #expect(link.counts.acknowledged == 0 && link.counts.pending == 3, "kept for the next listener, not lost")
        try await hostile.channel.close()
    }
}
