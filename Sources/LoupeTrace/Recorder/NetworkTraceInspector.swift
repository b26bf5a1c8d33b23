import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// The flight recorder: a ``ClientObserver`` that turns every exchange a client performs into a ``TraceExchange``
/// in a ``TraceStore``.
///
/// ```swift
/// let store = try SQLiteTraceStore(path: StoreLocation.defaultPath())
/// let inspector = NetworkTraceInspector(store: store)
/// let client = Client(baseURL: api, transport: transport, observer: inspector)
/// …
/// await inspector.shutdown()   // writes what is queued
/// ```
/// Observer methods run on the request path, so they only take a short lock: redaction, capping and storage
/// happen on a background writer, in batches. One inspector may serve many clients at once. When the writer
/// falls behind by more than ``Configuration/queueCapacity`` exchanges, new ones are dropped and counted in
/// ``droppedCount`` (and the next recorded exchange carries a `recorder-drop` event) rather than slowing requests.
public final class NetworkTraceInspector: ClientObserver {
    struct State {
        /// Found without hashing their ids while few.
        var inFlight = InFlightExchanges()
        /// Drops not yet reported as an event on a recorded exchange.
        var unreportedDrops = 0
        /// Exchanges not tracked at all because too many were in flight (or they started after `shutdown()`).
        var untracked = 0
        /// Set by `shutdown()`: exchanges starting later are not tracked.
        var shuttingDown = false
        /// `shutdown()` calls waiting for the ending exchanges to finish, by call.
        var shutdownWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]

        /// Whether an exchange that `shutdown()` waits for is in flight: any but an open SSE or WebSocket stream,
        /// which may never end.
        var hasEndingExchanges: Bool {
            !inFlight.filter { $0.stream == nil }.isEmpty
        }

        /// Changes the in-flight exchange in place. (`inFlight[id]?.x = …` copied the whole `PendingExchange` out
        /// and back, retaining each of its references on every observer call; see Benchmarks/README.md.)
        mutating func updateInFlight(_ id: UUID, _ change: (inout PendingExchange) -> Void) {
            inFlight.update(id, change)
        }
    }

    /// The settings this recorder was made with.
    public let configuration: Configuration
    let state = Mutex(State())
    /// Exchanges go to the writer in the box they were kept in from their start.
    let writer: TraceWriter<ExchangeBox>

    /// The in-flight exchanges that carry a stream (for ``openStreams``).
    func inFlightStreams() -> [PendingExchange] {
        state.withLock { state in state.inFlight.filter { $0.stream != nil && $0.endedAt == nil } }
    }

    /// Records into `store` with the given settings; starts one background writer.
    public init(store: any TraceStoreWriting, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let (policy, cap) = (configuration.redaction, configuration.bodyCap)
        writer = TraceWriter(
            store: store,
            settings: .init(
                capacity: configuration.queueCapacity, batchSize: configuration.batchSize,
                flushInterval: configuration.flushInterval, clock: configuration.clock),
            prepare: { [forwarders = configuration.forwarders] batch in
                var traces: [TraceExchange] = []
                traces.reserveCapacity(batch.count)
                // Each exchange borrowed from its box (a `for` loop's binding, or reading `pending`, copied it out).
                batch.forEach { $0.appendTrace(to: &traces, policy: policy, bodyCap: cap) }
                // After redaction and capping: a forwarder sends exactly what the store will hold.
                for forwarder in forwarders { forwarder.forward(traces) }
                return traces
            })
    }

    deinit {
        // Lets the background writer drain what is queued and end, instead of waiting for work forever.
        writer.stop()
    }

    /// Exchanges lost because the queue was full, the recorder had shut down, or too many were in flight.
    public var droppedCount: Int { writer.droppedCount + state.withLock { $0.untracked } }
    /// Batches the store failed to write (their exchanges are lost; requests are unaffected).
    public var failedWriteCount: Int { writer.failedWriteCount }
    /// Exchanges the store committed (what was recorded, as opposed to what was sent).
    public var writtenCount: Int { writer.writtenCount }
    /// Exchanges lost in batches the store failed to write.
    public var failedExchangeCount: Int { writer.failedItemCount }
    /// The last error the store reported, for diagnostics.
    public var lastWriteError: String? { writer.lastError }

    /// Returns once every exchange finished before the call is in the store.
    public func flush() async {
        await writer.flush()
    }

    /// Waits (at most ``Configuration/shutdownGrace``) for the exchanges still ending, writes what is queued and
    /// stops the background writer. Exchanges starting after the call, open streams, and exchanges finishing after
    /// the grace are dropped (and counted in ``droppedCount``).
    public func shutdown() async {
        await waitForEndingExchanges()
        await writer.shutdown()
        // Side by side, each within its own time limit: a collector that is down does not shorten the link's drain.
        await withTaskGroup(of: Void.self) { group in
            for forwarder in configuration.forwarders { group.addTask { await forwarder.finish() } }
        }
    }

    /// Returns when no exchange but open streams is in flight, or after the grace, whichever comes first. An app
    /// that dropped a streamed body just before `shutdown()` finishes its exchange on another thread a moment later:
    /// the writer must still take it.
    private func waitForEndingExchanges() async {
        let id = UUID()
        let (clock, grace) = (configuration.clock, configuration.shutdownGrace)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let waits = self.state.withLock { state -> Bool in
                            state.shuttingDown = true
                            guard state.hasEndingExchanges, !Task.isCancelled else { return false }
                            state.shutdownWaiters[id] = continuation
                            return true
                        }
                        if !waits { continuation.resume() }
                    }
                } onCancel: {
                    // Taken under the lock: either this or the last exchange's end resumes it, never both.
                    self.state.withLock { $0.shutdownWaiters.removeValue(forKey: id) }?.resume()
                }
            }
            group.addTask { try? await clock.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: ClientObserver

    // Attempts are not followed one by one: ``ExchangeFinished/attempts`` hands over the client's records whole,
    // so `attemptStarted` and `attemptFinished` keep their no-op defaults (and cost no lock on the request path).

    public func exchangeStarted(_ exchange: ExchangeStarted) {
        // Boxed here, once: the table, `finish` and the writer then hand on one reference.
        let box = ExchangeBox(PendingExchange(
            exchange, messageCap: configuration.messageCap, payloadCap: configuration.messagePayloadCap))
        let limit = configuration.queueCapacity
        state.withLock { state in
            // In-flight exchanges are bounded like the queue, so a leak elsewhere cannot grow memory forever.
            guard state.inFlight.count < limit, !state.shuttingDown else {
                state.untracked += 1
                state.unreportedDrops += 1
                return
            }
            state.inFlight.insert(box)
        }
    }

    public func eventRecorded(_ event: ExchangeEvent) {
        let trace = TraceEvent(event)
        state.withLock { state in
            state.updateInFlight(event.exchangeID) { $0.events.append(trace) }
        }
    }

    /// One append under the lock (the payload is cut to the cap, not copied otherwise): redaction happens when the
    /// exchange is written. Bounded per stream by ``Configuration/messageCap``.
    public func messageRecorded(_ message: ExchangeMessage) {
        let (cap, payloadCap) = (configuration.messageCap, configuration.messagePayloadCap)
        state.withLock { state in
            state.updateInFlight(message.exchangeID) { pending in
                if pending.messages == nil {
                    // A response that turned out to stream (`loupe send` on a text/event-stream) keeps its messages
                    // from the first.
                    pending.stream = pending.stream ?? message.stream
                    pending.messages = MessageKeeper(cap: cap, payloadCap: payloadCap)
                }
                pending.messages?.append(message)
            }
        }
    }

    public func exchangeFinished(_ exchange: ExchangeFinished) {
        var droppedBefore = 0
        var shutdownWaits = false
        let taken = state.withLock { state -> ExchangeBox? in
            guard let box = state.inFlight.remove(exchange.exchangeID) else { return nil }
            droppedBefore = state.unreportedDrops
            state.unreportedDrops = 0
            shutdownWaits = !state.shutdownWaiters.isEmpty
            return box
        }
        guard let taken else { return }
        // Out of the table, so this caller alone holds it until the writer takes it (see ``ExchangeBox``).
        taken.pending.finish(with: exchange, droppedBefore: droppedBefore)
        if !writer.enqueue(taken) {
            // This one is lost too: report it, and the ones it was carrying, on the next exchange that makes it.
            state.withLock { $0.unreportedDrops += droppedBefore + 1 }
        }
        // After the enqueue, so a waiting `shutdown()` stops the writer only once this one is queued. (A second
        // lock only while `shutdown()` waits: the request path keeps its one.)
        guard shutdownWaits else { return }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.shutdownWaiters.isEmpty, !state.hasEndingExchanges else { return [] }
            defer { state.shutdownWaiters.removeAll() }
            return Array(state.shutdownWaiters.values)
        }
        waiters.forEach { $0.resume() }
    }
}
