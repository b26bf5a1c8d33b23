import Foundation
import Logging
import LoupeQuery
import LoupeTesting
import LoupeTrace
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing
@testable import LoupeLink

/// Issue 44's hostile peers of the link (items 1, 2, 8, 16, 18, 19), on the value types and the real loopback.
@Suite struct LinkHostilePeerTests {
    static let app = LinkHello(app: "app", executable: "app", host: "h", pid: 1, secret: "s")

    // MARK: 1. Numbers from a peer

    @Test func aDropCountOutOfRangeIsABadPayload() throws {
        for number in ["9223372036854775000", "2147483648", "-1", "1e300", "18446744073709551616"] {
            var buffer = ByteBuffer(bytes: [0, 0, 0, UInt8(1 + 12 + number.utf8.count), 0x03]
                                    + Array("{\"dropped\":\(number)}".utf8))
            #expect(throws: LinkProtocolError.badPayload(.drops), "\(number)") { try LinkFrameCodec.next(from: &buffer) }
        }
        var largest = try LinkFrameCodec.encode(.drops(LinkCount(LinkCount.max)!))
        #expect(try LinkFrameCodec.next(from: &largest) == .drops(LinkCount(LinkCount.max)!))
    }

    @Test func countsAreCheckedOnceAndSumsSaturate() {
        #expect(LinkCount(Int(-1)) == nil && LinkCount(Int64(LinkCount.max) + 1) == nil && LinkCount(UInt64.max) == nil)
        #expect(LinkCount(Int(0))?.value == 0 && LinkCount(LinkCount.max)?.value == LinkCount.max)
        #expect(LinkCount(clamping: .max).value == LinkCount.max && LinkCount(clamping: -5).value == 0)
        #expect(LinkCount.saturating(.max - 1, adding: LinkCount.max) == .max)
        #expect(LinkCount.saturating(40, adding: 2) == 42)
    }

    @Test func theListenersDropTotalSaturates() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let shared = harness.listener.sharedForTests
        shared.counts.withLock { $0.droppedByApps = .max - 10 }
        shared.reportDrops(LinkCount(LinkCount.max)!, from: Self.app)
        #expect(harness.listener.counts.droppedByApps == .max)
        await harness.listener.stop()
    }

    // MARK: 2. Linked bodies capped, writes bounded by bytes

    @Test func linkedBodiesAreCappedAsTheRecorderCapsThem() {
        var machine = LinkSessionMachine(secret: "s", bodyCap: 10)
        _ = machine.received(.hello(Self.app))
        var exchange = LinkLoopbackTests.exchanges(1)[0]
        exchange.requestBody = TraceBody(data: Data(repeating: 1, count: 3 << 20), size: 3 << 20, isTruncated: false)
        exchange.responseBody = TraceBody(data: Data("short".utf8), size: 5, isTruncated: false)
        guard case .store(let stored) = machine.received(.exchange(exchange)) else {
            Issue.record("not stored")
            return
        }
        #expect(stored.requestBody == TraceBody(data: Data(repeating: 1, count: 10), size: 3 << 20, isTruncated: true))
        #expect(stored.responseBody == exchange.responseBody)
        #expect(LinkListener.Settings().bodyCap == NetworkTraceInspector.Configuration().bodyCap)
    }

    @Test func aTransactionTakesBatchesUpToItsBytes() {
        var queue = LinkStoreQueue<Int>(maxExchanges: 100, maxBytes: 10)
        #expect(queue.enqueue(1, count: 1, bytes: 6) == .startWriter)
        #expect(queue.enqueue(2, count: 1, bytes: 4) == .none)
        #expect(queue.enqueue(3, count: 1, bytes: 1) == .none)
        #expect(queue.enqueue(4, count: 1, bytes: 50) == .none)
        #expect(queue.nextWrite()?.map(\.batch) == [1, 2], "6 + 4 fit 10, one more byte does not")
        #expect(queue.nextWrite()?.map(\.batch) == [3])
        #expect(queue.nextWrite()?.map(\.batch) == [4], "a batch larger than the limit still goes, alone")
        #expect(queue.nextWrite() == nil && !queue.isWriting)
    }

    // MARK: 8. Admission

    @Test func unprovenConnectionsMakeRoomForTheNewest() {
        var admission = LinkAdmission<Int>(maxConnections: 4, maxUnproven: 2)
        #expect(admission.arrived(1) == .admit)
        #expect(admission.arrived(2) == .admit)
        #expect(admission.arrived(3) == .admitEvicting(1), "the oldest idle one goes")
        admission.welcomed(3)
        #expect(admission.arrived(4) == .admit)
        #expect(admission.arrived(5) == .admitEvicting(2))
        admission.welcomed(4)
        admission.welcomed(5)
        #expect(admission.linked == [3, 4, 5] && admission.unproven.isEmpty)
        #expect(admission.arrived(6) == .admit)
        #expect(admission.arrived(7) == .admitEvicting(6), "all slots taken: an unproven one makes room")
        admission.welcomed(7)
        #expect(admission.arrived(8) == .refuse, "linked apps are never closed for a newcomer")
        admission.left(3)
        #expect(admission.arrived(8) == .admit)
        admission.left(8)
        #expect(admission.count == 3)
    }

    @Test func aConnectionEvictedAsItLinksStaysLinked() {
        var admission = LinkAdmission<Int>(maxConnections: 10, maxUnproven: 1)
        _ = admission.arrived(1)
        #expect(admission.arrived(2) == .admitEvicting(1))
        admission.welcomed(1)  // its hello was read before the eviction reached its loop
        #expect(admission.linked == [1] && Array(admission.unproven) == [2])
        var machine = LinkSessionMachine(secret: "s")
        _ = machine.received(.hello(Self.app))
        #expect(machine.evicted("x") == .none, "a linked app is not closed")
    }

    /// In-process version of the e2e lockout: every slot held by idle TCP connections, and an app still links.
    @Test(.timeLimit(.minutes(5)))
    func anAppLinksWhileIdleConnectionsHoldEverySlot() async throws {
        var settings = LinkListener.Settings()
        settings.maxConnections = 6
        settings.maxUnproven = 4
        let harness = try await LinkLoopbackTests.Harness(settings: settings)
        let port = harness.listener.address.port
        let group = MultiThreadedEventLoopGroup.singleton
        let idle = try await (0..<6).asyncMap { _ in
            try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        }
        #expect(await LinkLoopbackTests.eventually { idle.filter(\.isActive).count == 4 },
                "two idle ones made room for the newer ones")
        let logs = LinkLoopbackTests.LogBox()
        let link = try LoupeLink(try harness.link(), configuration: LinkLoopbackTests.configuration(logs))
        link.forward(LinkLoopbackTests.exchanges(2))
        #expect(await LinkLoopbackTests.eventually { link.counts.acknowledged == 2 }, "\(harness.lines)")
        #expect(harness.lines.contains { $0.contains("no hello yet, closed to make room for a newer connection") })
        await link.finish()
        for channel in idle { try? await channel.close() }
        await harness.listener.stop()
    }

    // MARK: 18. The listener's lines

    @Test func aSilentPeerIsDroppedOnce() {
        var machine = LinkSessionMachine(secret: "s")
        #expect(machine.helloDeadlinePassed(.seconds(10))
            == .drop("no hello within 10.0 seconds (a TLS handshake never finished, or a silent peer)"))
        #expect(machine.transportFailed(beforeHello: "closed during the TLS handshake", afterHello: "x") == .none,
                "the close's own TLS error is not a second refusal")
        #expect(machine.helloDeadlinePassed(.seconds(10)) == .none)
    }

    @Test func aLinkedAppThatVanishesIsNotAHandshakeFailure() {
        var machine = LinkSessionMachine(secret: "s")
        _ = machine.received(.hello(Self.app))
        #expect(machine.helloDeadlinePassed(.seconds(10)) == .none)
        let explained = LinkServerHandler.explainAfterHello(NIOSSLError.uncleanShutdown)
        #expect(explained == "the app went away without closing the link: killed, or cut off")
        #expect(machine.transportFailed(beforeHello: LinkServerHandler.explain(NIOSSLError.uncleanShutdown),
                                        afterHello: explained) == .close(explained))
        var early = LinkSessionMachine(secret: "s")
        #expect(early.transportFailed(beforeHello: "closed during the TLS handshake", afterHello: explained)
            == .drop("closed during the TLS handshake"))
    }

    // MARK: 16. finish() is bounded

    /// A listener that welcomes and never acknowledges: finish waits the drain on the injected clock, and no longer.
    @Test(.timeLimit(.minutes(5)))
    func finishWaitsTheDrainOnTheClockForAListenerThatNeverAcks() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID().uuidString)").path
        let identity = try LinkIdentity.loadOrCreate(in: folder)
        let welcome = try LinkFrameCodec.encode(.welcome(LinkWelcome())).readableBytesView.map { $0 }
        let silent = try await HostileListener(identity: identity, answer: welcome)
        let clock = ManualClock()
        let logs = LinkLoopbackTests.LogBox()
        var configuration = LinkLoopbackTests.configuration(logs, drain: .seconds(3))
        configuration.clock = clock
        let link = try LoupeLink(try LinkAddress(secret: identity.secret, host: "127.0.0.1", port: silent.port,
                                                 fingerprint: identity.fingerprint), configuration: configuration)
        link.forward(LinkLoopbackTests.exchanges(1))
        #expect(await LinkLoopbackTests.eventually { link.counts.links == 1 })
        let finished = ManagedFlag()
        let finishing = Task {
            await link.finish()
            finished.set()
        }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(3)], "the drain, on the injected clock")
        clock.advance(by: .seconds(3) - .milliseconds(1))
        #expect(clock.sleeperCount == 1 && !finished.value, "not before the drain is over")
        clock.advance(by: .milliseconds(1))
        await finishing.value
        #expect(link.counts.pending == 1, "undelivered, said by the caller")
        try await silent.channel.close()
    }

    /// A listener that is down: finish does not wait for it (a `send --link` cost 3 s each). The drain is an hour,
    /// so a finish that waited it out runs into the time limit, however slow the machine is.
    @Test(.timeLimit(.minutes(5)))
    func finishDoesNotWaitForAListenerThatIsDown() async throws {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(probe.localAddress?.port)
        try await probe.close()
        let clock = ManualClock()
        let logs = LinkLoopbackTests.LogBox()
        var configuration = LinkLoopbackTests.configuration(logs, drain: .seconds(3600))
        configuration.clock = clock
        let link = try LoupeLink(try LinkAddress(secret: "0123456789abcdef0123456789abcdef", host: "127.0.0.1",
                                                 port: port, fingerprint: CertificateFingerprint(bytes: Array(repeating: 7, count: 32))!),
                                 configuration: configuration)
        link.forward(LinkLoopbackTests.exchanges(1))
        #expect(await LinkLoopbackTests.eventually { link.core.attempts.withLock { $0 } == 1 }, "the first dial failed")
        // The clock never moves, so only the link being down can end the drain; before, finish waited the drain in
        // real time whatever the link's state.
        await link.finish()
        #expect(clock.requestedSleeps.contains(.seconds(3600)), "the drain was started on the injected clock")
        #expect(link.counts.pending == 1)
    }
}

/// A flag set from one task and read from another.
final class ManagedFlag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
