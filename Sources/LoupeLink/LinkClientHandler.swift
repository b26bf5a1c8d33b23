import Foundation
import Logging
import Loupe
import LoupeRules
import LoupeTrace
import NIOCore
import Synchronization

/// Why one connection of the app's link ended.
enum LinkClientError: Error, CustomStringConvertible {
    case refused(String)
    case noWelcome(Duration)
    case badAck(Int)

    var description: String {
        switch self {
        case .refused(let reason): "the listener refused the link: \(reason)"
        case .noWelcome(let limit): "no welcome within \(limit)"
        case .badAck(let count): "the listener acknowledged \(Quantity.count(count, "exchange")) it was not sent"
        }
    }
}

/// The app's connection on its event loop: hello, then writes what the outbox holds while the channel is
/// writable (TCP's flow control is the link's: a slow viewer fills the buffer, never the request path).
final class LinkClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = LinkFrame
    typealias OutboundOut = ByteBuffer

    /// Completed when the channel closes: true when it had been welcomed.
    struct Ending: Sendable {
        let closed: EventLoopFuture<Bool>
    }

    private let core: LoupeLink.Core
    private var context: ChannelHandlerContext?
    private var welcomed = false
    private var timeout: Scheduled<Void>?
    private var closedPromise: EventLoopPromise<Bool>?
    private var closedFuture: EventLoopFuture<Bool>?
    /// This connection's viewer takes the rule state (its welcome said so), and the origin of the rules it sets.
    private var rulesViewer: RuleOrigin?
    var ending: Ending { Ending(closed: closedFuture!) }

    init(core: LoupeLink.Core) {
        self.core = core
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let promise = context.eventLoop.makePromise(of: Bool.self)
        closedPromise = promise
        closedFuture = promise.futureResult
        let limit = core.configuration.connectTimeout
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: limit.timeAmount) {
            let handler = bound.value
            guard !handler.welcomed else { return }
            handler.core.lastFailure.withLock { $0 = $0 ?? LinkClientError.noWelcome(limit).description }
            handler.context?.close(promise: nil)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        var hello = LinkHello.thisProcess(secret: core.address.secret, app: core.configuration.appName)
        hello.rules = core.rules.withLock { $0 } == nil ? nil : true
        if let bytes = try? LinkFrameCodec.encode(.hello(hello)) {
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
        self.context = nil
    }

    private func end() {
        if let origin = rulesViewer, let book = core.rules.withLock({ $0 }) {
            // The viewer went away: what it held goes on at once, and what it set is removed; after the commands it
            // sent before leaving, so none of them sets a rule for a viewer that is gone.
            rulesViewer = nil
            core.ruleCommands.async { book.forget(origin) }
        }
        timeout?.cancel()
        closedPromise?.succeed(welcomed)
        closedPromise = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (welcomed, unwrapInboundIn(data)) {
        case (false, .welcome(let welcome)):
            guard welcome.protocol == LinkProtocol.version else {
                fail("the listener speaks protocol \(welcome.protocol), this is \(LinkProtocol.version)", context: context)
                return
            }
            welcomed = true
            timeout?.cancel()
            core.isDown.withLock { $0 = false }
            core.linkCount.withLock { $0 += 1 }
            core.configuration.logger.info("loupe link: linked to \(core.address.redacted)")
            if welcome.rules == true, core.rules.withLock({ $0 }) != nil {
                let number = core.viewers.withLock { $0 += 1; return $0 }
                rulesViewer = .viewer("\(core.address.host):\(core.address.port) #\(number)")
                core.ruleStateDirty.withLock { $0 = true }
            }
            pump()
        case (true, .rules(let command)):
            guard let origin = rulesViewer, let book = core.rules.withLock({ $0 }) else {
                fail(LinkProtocolError.unexpected(.rules, expected: "an ack").description, context: context)
                return
            }
            // Applied off this event loop, which the app's own HTTP client may share: parsing and indexing a
            // thousand rules must not hold up its requests. In order, one command after another.
            let logger = core.configuration.logger
            core.ruleCommands.async {
                if let problem = command.apply(to: book, origin: origin) {
                    logger.warning("loupe link: a rule command from the viewer was refused: \(TerminalText.line(problem))")
                }
            }
        case (_, .refuse(let reason)):
            fail(LinkClientError.refused(TerminalText.line(reason)).description, context: context)
        case (true, .ack(let count)):
            guard core.outbox.withLock({ $0.acknowledge(count.value) }) else {
                fail(LinkClientError.badAck(count.value).description, context: context)
                return
            }
            pump()
        case (_, let other):
            fail(LinkProtocolError.unexpected(other.type, expected: welcomed ? "an ack" : "a welcome").description,
                 context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let text = LoupeLink.Core.explain(error)
        core.lastFailure.withLock { $0 = $0 ?? text }
        context.close(promise: nil)
    }

    /// Writes drops and exchanges while the channel takes them.
    func pump() {
        guard welcomed, let context, context.channel.isActive else { return }
        if rulesViewer != nil, core.ruleStateDirty.withLock({ dirty in defer { dirty = false }; return dirty }),
           let book = core.rules.withLock({ $0 }), let bytes = try? LinkFrameCodec.encode(.ruleState(LinkRuleState(book)))
        {
            // Coalesced: however many changes came since the last pump, the viewer gets the latest state once.
            context.write(wrapOutboundOut(bytes), promise: nil)
        }
        if let dropped = core.outbox.withLock({ $0.takeDropReport() }),
           let bytes = try? LinkFrameCodec.encode(.drops(LinkCount(clamping: dropped)))
        {
            context.write(wrapOutboundOut(bytes), promise: nil)
        }
        while context.channel.isWritable {
            let frames = core.outbox.withLock { $0.takeUnsent(maxBytes: 256 << 10) }
            guard !frames.isEmpty else { break }
            // One write of them all: each write is a trip down the pipeline and a TLS record of its own (an
            // `SSL_write`), which cost more than copying the frames together.
            if frames.count == 1 {
                context.write(wrapOutboundOut(frames[0]), promise: nil)
            } else {
                var joined = context.channel.allocator.buffer(capacity: frames.reduce(0) { $0 + $1.readableBytes })
                for frame in frames { joined.writeImmutableBuffer(frame) }
                context.write(wrapOutboundOut(joined), promise: nil)
            }
            context.flush()
        }
        context.flush()
    }

    private func fail(_ line: String, context: ChannelHandlerContext) {
        core.lastFailure.withLock { $0 = line }
        context.close(promise: nil)
    }
}
