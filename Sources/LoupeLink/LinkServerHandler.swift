import Foundation
import LoupeTrace
import NIOCore
import NIOSSL
import Synchronization

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
    /// What ``pending`` counts for against the store's bounds (``TraceExchange/storedByteCount``).
    private var pendingBytes = 0
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
        machine = LinkSessionMachine(secret: shared.identity.secret, bodyCap: shared.settings.bodyCap)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let timeout = shared.settings.helloTimeout
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout.timeAmount) {
            let (handler, context) = bound.value
            handler.perform(handler.machine.helloDeadlinePassed(timeout), context: context)
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

    /// The listener closes this connection to make room for a newer one, unless its app linked meanwhile.
    func evict(context: ChannelHandlerContext, reason: String) {
        perform(machine.evicted(reason), context: context)
    }

    private var readsHeld: Bool {
        pending.count >= shared.settings.maxPendingPerConnection
            || pendingBytes >= shared.settings.maxPendingBytesPerConnection
    }

    func read(context: ChannelHandlerContext) {
        // Flow control: a viewer whose store is behind stops reading this app, and TCP slows the app's sends
        // (which its bounded buffer absorbs); other apps are not held up. Bytes count as well as exchanges: 2,000
        // exchanges of 1 MiB bodies would be 2 GiB in memory.
        if readsHeld {
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
        // A refused connection says nothing more: the peer gets the TLS alert. One that was already dropped (its
        // hello deadline, an eviction) is not refused again for the TLS error its close raises.
        perform(machine.transportFailed(beforeHello: Self.explain(error), afterHello: Self.explainAfterHello(error)),
                context: context)
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
            shared.welcomed(context.channel)
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
            pendingBytes += exchange.storedByteCount
            pending.append(exchange)
        case .drops(let total):
            if case .linked(let app) = machine.state {
                shared.reportDrops(total, from: app)
                shared.events(.drops(app: app, total: total.value))
            }
        case .refuse(let reason):
            shared.refused("\(peer): \(reason)")
            if let bytes = try? LinkFrameCodec.encode(.refuse(reason)) {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in bound.value.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .drop(let reason):
            shared.refused("\(peer): \(reason)")
            context.close(promise: nil)
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
        let bytes = pendingBytes
        pending = []
        pendingBytes = 0
        pending.reserveCapacity(count)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        shared.write(batch, bytes: bytes, on: context.eventLoop).whenComplete { result in
            let (handler, context) = bound.value
            handler.writing = false
            switch result {
            case .success:
                handler.stored += count
                if context.channel.isActive, let bytes = try? LinkFrameCodec.encode(.ack(LinkCount(clamping: count))) {
                    context.writeAndFlush(handler.wrapOutboundOut(bytes), promise: nil)
                }
                if handler.heldRead, !handler.readsHeld {
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

    /// One line for a TLS or socket failure of a linked app's connection.
    static func explainAfterHello(_ error: any Error) -> String {
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
            // The handshake was long over: the app's process ended (or its network did) without closing the link.
            return "the app went away without closing the link: killed, or cut off"
        }
        if let io = error as? IOError {
            return "the connection failed: \(TerminalText.line(String(io.description.prefix(200))))"
        }
        return explain(error)
    }
}

extension Duration {
    /// NIO's form of this duration, in whole nanoseconds.
    var timeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}
