import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// A transport that answers each route from a script, step by step, repeating the last step once the script is
/// used up: `[.status(503), .status(503), .status(200)]` is a server that recovers on the third try.
///
/// Routes match like ``RoutedTransport``'s (method, or any; exact path or regular expression; the first match
/// wins); unmatched requests get 404. Delays run on the injected clock, so a `ManualClock` makes them instant and
/// deterministic; a delay longer than the attempt's timeout fails with ``TransportError/Kind/timedOut`` as a real
/// transport would. Copies share their place in the scripts and their call counts.
public struct ScriptedTransport: ClientTransport {
    /// One scripted outcome.
    public indirect enum Step: Sendable {
        /// A response with this status code, header fields and body.
        case status(Int, headers: HTTPFields = [:], body: Data = Data())
        /// This exact response.
        case response(RawResponse)
        /// A failure without a response, usually a ``TransportError``.
        case error(any Error)
        /// A fault, in the words rules and ``FaultInjectingTransport`` use; one that reaches the server answers
        /// `200` with an empty body (as if the server had), then misbehaves.
        case fault(TransportFault)
        /// Waits on the clock, then performs the next step.
        case delay(Duration, then: Step)
    }

    /// The steps for the requests matching one route.
    public struct Script: Sendable {
        /// The method matched, or `nil` for any.
        public var method: HTTPRequest.Method?
        /// The path matched (without the query).
        public var path: RoutedTransport.PathPattern
        /// The outcomes, in order; the last one repeats.
        public var steps: [Step]

        /// A script for `method` (any when `nil`) and `path`; `steps` must not be empty.
        public init(_ method: HTTPRequest.Method?, _ path: RoutedTransport.PathPattern, _ steps: [Step]) {
            precondition(!steps.isEmpty, "a script needs at least one step")
            self.method = method
            self.path = path
            self.steps = steps
        }
    }

    private struct Log {
        var positions: [Int]
        var requests: [(request: HTTPRequest, script: Int?)] = []
    }

    /// A reference, so that copies of the transport (every `Client` holds one) share one place in the scripts.
    private final class SharedLog: Sendable {
        let state: Mutex<Log>
        init(_ log: Log) { state = Mutex(log) }
    }

    private let scripts: [Script]
    private let behaviour: MockBehaviour
    private let clock: any Clock<Duration>
    private let shared: SharedLog

    /// A transport answering each route from its script.
    public init(_ scripts: [Script], behaviour: MockBehaviour = .immediate, clock: any Clock<Duration> = ContinuousClock()) {
        self.scripts = scripts
        self.behaviour = behaviour
        self.clock = clock
        self.shared = SharedLog(Log(positions: Array(repeating: 0, count: scripts.count)))
    }

    /// A transport answering every request from one script.
    public init(_ steps: [Step], behaviour: MockBehaviour = .immediate, clock: any Clock<Duration> = ContinuousClock()) {
        self.init([Script(nil, .regex(".*"), steps)], behaviour: behaviour, clock: clock)
    }

    /// Answers with the next step of the first matching route's script, or 404 when no route matches.
    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let path = String((request.path ?? "/").split(separator: "?", maxSplits: 1).first ?? "/")
        let index = scripts.firstIndex { ($0.method == nil || $0.method == request.method) && $0.path.matches(path) }
        let step = shared.state.withLock { log -> Step? in
            log.requests.append((request, index))
            guard let index else { return nil }
            defer { log.positions[index] += 1 }
            return scripts[index].steps[min(log.positions[index], scripts[index].steps.count - 1)]
        }
        guard let step else {
            return RawResponse(status: .notFound, body: Data("no script for \(request.method) \(path)".utf8))
        }
        if case .delayed(let delay) = behaviour {
            try await SimulatedWait.wait(delay, clock: clock, context: context)
        }
        return try await perform(step, request: request, context: context)
    }

    private func perform(_ step: Step, request: HTTPRequest, context: RequestContext) async throws -> RawResponse {
        switch step {
        case .status(let code, let headers, let body):
            return answer(RawResponse(status: .init(code: code), headerFields: headers, body: body), context: context)
        case .response(let response):
            return answer(response, context: context)
        case .error(let error):
            context.attempt?.markRequestSent()
            throw error
        case .fault(let fault):
            return try await fault.perform(request, body: nil,
                                           context: context, clock: clock) { _, _, context in
                answer(RawResponse(status: .ok), context: context)
            }
        case .delay(let delay, let next):
            try await SimulatedWait.wait(delay, clock: clock, context: context)
            return try await perform(next, request: request, context: context)
        }
    }

    private func answer(_ response: RawResponse, context: RequestContext) -> RawResponse {
        context.attempt?.markRequestSent()
        context.attempt?.markFirstByte()
        return response
    }

    /// Every request received, in order.
    public var requests: [HTTPRequest] { shared.state.withLock { $0.requests.map(\.request) } }

    /// How many requests reached the script at `index` (in the order given to `init`).
    public func callCount(script index: Int) -> Int {
        shared.state.withLock { log in log.requests.count { $0.script == index } }
    }

    /// How many requests matched `method` (any when `nil`) and exactly `path` (without the query).
    public func callCount(_ method: HTTPRequest.Method? = nil, path: String) -> Int {
        requests.count { request in
            (method == nil || request.method == method)
                && String((request.path ?? "/").split(separator: "?", maxSplits: 1).first ?? "/") == path
        }
    }
}
