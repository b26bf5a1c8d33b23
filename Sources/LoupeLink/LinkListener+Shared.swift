import Foundation
import LoupeTrace
import NIOCore
import NIOPosix
import Synchronization

extension LinkListener {
    /// State shared by the listener's connections, each part under its own lock.
    final class Shared: Sendable {
        let identity: LinkIdentity
        let store: any TraceStoreWriting
        let settings: Settings
        let events: @Sendable (LinkListenerEvent) -> Void
        let counts = Mutex(Counts())
        let channels = Mutex([ObjectIdentifier: any Channel]())
        /// Which connections keep their slots (``LinkAdmission``).
        let admission: Mutex<LinkAdmission<ObjectIdentifier>>
        let linkedApps = Mutex([ObjectIdentifier: LinkHello]())
        /// The latest rule state of each linked app that takes rules.
        let ruleStates = Mutex([ObjectIdentifier: LinkRuleState]())
        let ruleListeners = Mutex<[@Sendable () -> Void]>([])
        let refusals = Mutex(RateLimitedLines())
        /// Store writes in progress, so ``LinkListener/stop()`` can wait for them.
        let writes = Mutex(0)
        /// One thread: batches from all connections are written one after another, as the store wants.
        let pool: NIOThreadPool

        init(identity: LinkIdentity, store: any TraceStoreWriting, settings: Settings,
             events: @escaping @Sendable (LinkListenerEvent) -> Void) {
            self.identity = identity
            self.store = store
            self.settings = settings
            self.events = events
            admission = Mutex(LinkAdmission(maxConnections: settings.maxConnections, maxUnproven: settings.maxUnproven))
            pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
        }

        deinit {
            pool.shutdownGracefully { _ in }
        }

        /// Takes a new connection, closing the oldest one without a hello when unproven peers are at their budget;
        /// false when it must be refused (every slot is a linked app's).
        func admit(_ channel: any Channel) -> Bool {
            let id = ObjectIdentifier(channel)
            let (decision, evicted) = channels.withLock { open -> (LinkAdmission<ObjectIdentifier>.Decision, (any Channel)?) in
                let decision = admission.withLock { $0.arrived(id) }
                guard decision != .refuse else { return (decision, nil) }
                open[id] = channel
                guard case .admitEvicting(let oldest) = decision else { return (decision, nil) }
                return (decision, open[oldest])
            }
            if let evicted { evict(evicted) }
            return decision != .refuse
        }

        /// Closes `channel` on its event loop through its handler, which says why once (unless it linked meanwhile).
        private func evict(_ channel: any Channel) {
            channel.eventLoop.execute {
                guard let context = try? channel.pipeline.syncOperations.context(handlerType: LinkServerHandler.self),
                      let handler = context.handler as? LinkServerHandler
                else {
                    channel.close(promise: nil)
                    return
                }
                handler.evict(context: context, reason: "no hello yet, closed to make room for a newer connection")
            }
        }

        /// The connection's app proved the secret.
        func welcomed(_ channel: any Channel) {
            admission.withLock { $0.welcomed(ObjectIdentifier(channel)) }
        }

        func remove(_ channel: any Channel) {
            _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
            admission.withLock { $0.left(ObjectIdentifier(channel)) }
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

        func reportDrops(_ count: LinkCount, from app: LinkHello) {
            let total = count.value
            sources.withLock { $0[AppKey(app)]?.source.dropped = total }
            let added = dropTotals.withLock { totals -> Int in
                let previous = totals[AppKey(app)] ?? 0
                // Totals only grow; a smaller one (another process reusing the pid) starts a new count.
                let added = total >= previous ? total - previous : total
                totals[AppKey(app)] = total
                return added
            }
            // Each total is in range, but apps are many and the sum lives as long as the listener.
            counts.withLock { $0.droppedByApps = LinkCount.saturating($0.droppedByApps, adding: added) }
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
        let storeQueue = Mutex(LinkStoreQueue<PendingWrite>(maxExchanges: 4_096, maxBytes: 8 << 20))

        /// Queues `batch` for the store's thread; the future completes on `eventLoop` once the transaction that
        /// holds it committed (or failed).
        /// `batch` holds their source already (``LinkSessionMachine`` sets it from the hello as it reads each one).
        func write(_ batch: [TraceExchange], bytes: Int = 0, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            writes.withLock { $0 += 1 }
            let count = batch.count
            let promise = eventLoop.makePromise(of: Void.self)
            let action = storeQueue.withLock {
                $0.enqueue(PendingWrite(exchanges: batch, promise: promise), count: count, bytes: bytes)
            }
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
