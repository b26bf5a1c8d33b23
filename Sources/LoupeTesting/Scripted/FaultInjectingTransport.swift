import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// Wraps any transport and injects the faults of ``TransportFault`` (latency, resets, connect failures, timeouts,
/// statuses, cut bodies), chosen per call
/// by a ``FaultPlan`` (by call number, or from an injected random source), so chaos tests are reproducible.
///
/// Waits run on the injected clock. Faults that fail or answer do not reach the wrapped transport
/// (``TransportFault/reachesServer``). Copies share their call counter.
public struct FaultInjectingTransport: ClientTransport {
    /// One injected misbehaviour: the one vocabulary of faults, shared with rules acting on a live app.
    public typealias Fault = TransportFault

    /// A fault and the call (1 for the first) it was injected into.
    public struct Injection: Sendable, Hashable {
        /// The call number, 1 for the first.
        public var call: Int
        /// What was injected.
        public var fault: Fault
    }

    private struct Log {
        var calls = 0
        var injections: [Injection] = []
    }

    private final class SharedLog: Sendable {
        let state = Mutex(Log())
    }

    private let base: any ClientTransport
    private let plan: FaultPlan
    private let clock: any Clock<Duration>
    private let shared = SharedLog()

    /// Wraps `base`, injecting the faults `plan` chooses.
    public init(wrapping base: any ClientTransport, plan: FaultPlan, clock: any Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.plan = plan
        self.clock = clock
    }

    /// Injects the planned fault for this call, or passes it to the wrapped transport.
    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let call = shared.state.withLock { log -> Int in
            log.calls += 1
            return log.calls
        }
        guard let fault = plan.fault(call) else { return try await base.send(request, body: body, context: context) }
        shared.state.withLock { $0.injections.append(Injection(call: call, fault: fault)) }
        do {
            return try await fault.perform(request, body: body, context: context, clock: clock) { request, body, context in
                try await base.send(request, body: body, context: context)
            }
        } catch var error as TransportError {
            error.message += " on call \(call)"
            throw error
        }
    }

    /// Calls received so far, faulty or not.
    public var callCount: Int { shared.state.withLock { $0.calls } }

    /// Every fault injected so far, in order.
    public var injections: [Injection] { shared.state.withLock { $0.injections } }
}
