import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// Wraps any transport and injects latency, connection resets, connect failures and timeouts, chosen per call
/// by a ``FaultPlan`` (by call number, or from an injected random source), so chaos tests are reproducible.
///
/// Waits run on the injected clock. Failing faults do not reach the wrapped transport, except a timeout, which
/// stands for a server that never answers. Copies share their call counter.
public struct FaultInjectingTransport: ClientTransport {
    /// One injected misbehaviour.
    public enum Fault: Sendable, Hashable {
        /// The call goes through after this extra delay (or times out if the attempt's timeout is shorter).
        case latency(Duration)
        /// Fails with ``TransportError/Kind/connectionReset``.
        case connectionReset
        /// Fails with ``TransportError/Kind/connectFailed``.
        case connectFailed
        /// Waits for the attempt's timeout (at once when it has none), then fails with ``TransportError/Kind/timedOut``.
        case timeout
    }

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
        switch fault {
        case .latency(let delay):
            try await SimulatedWait.wait(delay, clock: clock, context: context)
            return try await base.send(request, body: body, context: context)
        case .connectionReset:
            context.attempt?.markRequestSent()
            throw TransportError(.connectionReset, "injected connection reset on call \(call)")
        case .connectFailed:
            throw TransportError(.connectFailed, "injected connect failure on call \(call)")
        case .timeout:
            context.attempt?.markRequestSent()
            if let timeout = context.timeout, timeout > .zero { try await clock.sleep(for: timeout) }
            throw TransportError(.timedOut, "injected timeout on call \(call)")
        }
    }

    /// Calls received so far, faulty or not.
    public var callCount: Int { shared.state.withLock { $0.calls } }

    /// Every fault injected so far, in order.
    public var injections: [Injection] { shared.state.withLock { $0.injections } }
}
