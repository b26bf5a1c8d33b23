import Foundation
import Loupe
import LoupeTrace
import NIOCore
import Testing
@testable import LoupeLink

/// The app's buffer, the backoff, the listener's per-connection machine and the refusal rate limit, as values.
@Suite struct LinkStateTests {
    static func frame(_ size: Int, tag: UInt8 = 0) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: tag, count: size)) }

    @Test func theBufferDropsTheOldestUnwrittenFirstAndCountsThem() {
        var outbox = LinkOutbox(capacity: 100)
        for tag in 1...4 { outbox.append(Self.frame(30, tag: UInt8(tag))) }
        #expect(outbox.pending == 3 && outbox.dropped == 1 && outbox.bytes == 90)
        let written = outbox.takeUnsent(maxBytes: 1000)
        #expect(written.map { $0.getInteger(at: 0, as: UInt8.self) } == [2, 3, 4], "the oldest, 1, went")
        let newest = outbox.append(Self.frame(30))
        #expect(!newest, "all in flight: the newest is dropped, memory stays bounded")
        #expect(outbox.dropped == 2 && outbox.bytes == 90)
        let huge = outbox.append(Self.frame(101))
        #expect(!huge, "larger than the whole buffer")
        #expect(outbox.dropped == 3 && outbox.accepted == 6)
    }

    @Test func unacknowledgedExchangesAreWrittenAgainAfterALostConnection() {
        var outbox = LinkOutbox(capacity: 1000)
        for tag in 1...5 { outbox.append(Self.frame(10, tag: UInt8(tag))) }
        let firstWrite = outbox.takeUnsent(maxBytes: 30)
        #expect(firstWrite.count == 3, "up to the byte limit")
        let good = outbox.acknowledge(2)
        let tooMany = outbox.acknowledge(2)
        #expect(good && !tooMany, "one more than was written is a broken peer")
        outbox.connectionLost()
        let again = outbox.takeUnsent(maxBytes: 1000)
        #expect(again.map { $0.getInteger(at: 0, as: UInt8.self) } == [3, 4, 5])
        let rest = outbox.acknowledge(3)
        #expect(rest)
        #expect(outbox.acknowledged == 5 && outbox.pending == 0 && outbox.bytes == 0)
        #expect(outbox.acknowledged + outbox.dropped == outbox.accepted)
    }

    @Test func dropsAreReportedOncePerConnection() {
        var outbox = LinkOutbox(capacity: 10)
        outbox.append(Self.frame(8))
        outbox.append(Self.frame(8))
        let first = outbox.takeDropReport()
        let second = outbox.takeDropReport()
        #expect(first == 1 && second == nil)
        outbox.connectionLost()
        let afterReconnect = outbox.takeDropReport()
        #expect(afterReconnect == 1, "the next viewer hears the total")
    }

    @Test func backoffGrowsToItsCapWithJitterBelowIt() {
        let backoff = LinkBackoff(initial: .milliseconds(100), maximum: .seconds(2), jitter: 0.5)
        #expect(backoff.delay(afterFailures: 1, unit: 0) == .milliseconds(100))
        #expect(backoff.delay(afterFailures: 2, unit: 0) == .milliseconds(200))
        #expect(backoff.delay(afterFailures: 5, unit: 0) == .milliseconds(1600))
        #expect(backoff.delay(afterFailures: 6, unit: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: 1_000_000, unit: 0) == .seconds(2), "no overflow")
        #expect(backoff.delay(afterFailures: 6, unit: 1) == .seconds(1))
        #expect(backoff.delay(afterFailures: 6, unit: 0.5) == .milliseconds(1500))
    }

    static let secret = "0123456789abcdef"

    static func hello(secret: String = secret, protocol version: Int = LinkProtocol.version) -> LinkHello {
        LinkHello(protocol: version, app: "a", executable: "/a", host: "h", pid: 1, secret: secret)
    }

    @Test func aGoodHelloIsWelcomedAndItsSecretForgotten() {
        var machine = LinkSessionMachine(secret: Self.secret)
        var shown = Self.hello()
        shown.secret = ""
        let welcome = machine.received(.hello(Self.hello()))
        #expect(welcome == .welcome(shown))
        let exchange = TraceExchange(id: UUID(), sequence: 99, operation: "o", method: "GET", url: "http://h/",
                                     startedAt: Date(), outcome: .success)
        var stored = exchange
        stored.sequence = nil
        stored.source = TraceSource(app: "a", host: "h", pid: 1)
        let store = machine.received(.exchange(exchange))
        #expect(store == .store(stored), "the listener's store numbers it, and its source is the app that linked")
        var claimed = exchange
        claimed.source = TraceSource(app: "someone else", host: "x", pid: 2)
        #expect(machine.received(.exchange(claimed)) == .store(stored), "whatever source the app claims")
        let drops = machine.received(.drops(4))
        #expect(drops == .drops(4))
        let backwards = machine.received(.welcome(LinkWelcome()))
        #expect(backwards == .refuse("a welcome message from the wrong side"))
        let late = machine.received(.drops(5))
        #expect(late == LinkSessionMachine.Action.none, "closed")
    }

    @Test func refusalsSayWhy() {
        var wrongSecret = LinkSessionMachine(secret: Self.secret)
        let secretRefusal = wrongSecret.received(.hello(Self.hello(secret: "fedcba9876543210")))
        #expect(secretRefusal == .refuse("wrong secret"))
        var newer = LinkSessionMachine(secret: Self.secret)
        let versionRefusal = newer.received(.hello(Self.hello(protocol: 3)))
        #expect(versionRefusal == .refuse("protocol 3, this is 2"))
        // Protocol 1 carried rules as TOML: an app of that version is refused, in words, rather than half read.
        var older = LinkSessionMachine(secret: Self.secret)
        let oldRefusal = older.received(.hello(Self.hello(protocol: 1)))
        #expect(oldRefusal == .refuse("protocol 1, this is 2"))
        var early = LinkSessionMachine(secret: Self.secret)
        let orderRefusal = early.received(.drops(1))
        #expect(orderRefusal == .refuse("a drops message where a hello was expected"))
        var broken = LinkSessionMachine(secret: Self.secret)
        let sizeRefusal = broken.failed(.frameTooLarge(UInt32.max, limit: 65_536))
        #expect(sizeRefusal == .refuse("a frame of 4294967295 bytes is over the limit of 65536"))
    }

    @Test func refusalLinesAreRateLimited() {
        var lines = RateLimitedLines(limit: 2, window: .seconds(10))
        let start = ContinuousClock.now
        let shown = [
            lines.admit("a", at: start), lines.admit("b", at: start), lines.admit("c", at: start + .seconds(1)),
            lines.admit("d", at: start + .seconds(2)), lines.admit("e", at: start + .seconds(11)),
        ]
        #expect(shown == ["a", "b", nil, nil, "e (and 2 more refused since the last line)"])
    }
}
