import Foundation
import HTTPTypes

extension Client {
    typealias Next = ClientMiddleware.Next

    /// Runs one exchange: report start, fold the middleware around the transport, validate, decode, report end.
    nonisolated(nonsending) func perform<Value: Sendable>(
        _ request: HTTPRequest,
        body: RequestBody?,
        options: RequestOptions,
        validate: Bool,
        decode: (RawResponse) throws -> Value
    ) async throws -> ClientResponse<Value> {
        let operation = options.operation ?? Self.operationName(request)
        // Before anything is recorded or sent: SwiftNIO traps on a port above 65535, so a bad URL typed, imported
        // or replayed must fail here as an ordinary error.
        if let problem = RequestTargetCheck.problem(in: request) {
            throw ClientError(operation: operation, request: request, stage: .encoding, underlyingError: problem)
        }
        let id = configuration.makeID()
        let tracker = ExchangeTracker(
            exchangeID: id, operation: operation, clock: configuration.clock, checkedAuthority: request.authority,
            observer: observer, now: configuration.now)
        let startedAt = configuration.now()
        observer.exchangeStarted(ExchangeStarted(
            exchangeID: id, operation: operation, request: request, requestBody: body?.bufferedData,
            startedAt: startedAt, replayOf: options.replayOf, stream: options.stream))
        let context = RequestContext(timeout: options.timeout, tracker: tracker)

        func fail(_ stage: ClientError.Stage, _ error: any Error, _ response: RawResponse?) -> ClientError {
            let failure = (error as? ClientError) ?? ClientError(
                operation: operation, request: request, response: response, stage: stage, underlyingError: error, exchangeID: id)
            observer.exchangeFinished(ExchangeFinished(
                exchangeID: id, outcome: Self.outcome(for: failure), response: failure.response?.head,
                responseBody: failure.response?.body, responseBodySize: failure.response?.bodySize, error: failure, endedAt: configuration.now(),
                attempts: tracker.records))
            return failure
        }

        let raw: RawResponse
        do {
            raw = try await runCancellable(id) { [handler] in try await handler(request, body, context) }
        } catch {
            // A transport failure after the head arrived carries what came: it is reported, not thrown away.
            let partial = (error as? TransportError)?.partialResponse
            if Task.isCancelled || error is CancellationError || (error as? ClientError)?.stage == .cancelled {
                throw fail(.cancelled, error, partial)
            }
            if error is AbortedAtBreakpointError { throw fail(.abortedAtBreakpoint, error, nil) }
            if let transportError = error as? TransportError {
                throw fail(transportError.kind == .cancelled ? .cancelled : .transport, error, partial)
            }
            // A refusal after a retried response: that response is the server's last real answer, kept with it.
            let answered = error is any ShortCircuitError ? tracker.lastAnswerBeforeRetry : nil
            throw fail(error is InvalidRequestTargetError ? .encoding : .middleware, error, answered)
        }
        if validate, !configuration.acceptableStatus(raw.status) {
            throw fail(.validation, UnacceptableStatusError(status: raw.status.code), raw)
        }
        let value: Value
        do {
            value = try decode(raw)
        } catch {
            throw fail(.decoding, error, raw)
        }
        let endedAt = configuration.now()
        let attempts = tracker.records
        let outcome: ExchangeOutcome = raw.status.code >= 400 ? .httpError : .success
        observer.exchangeFinished(ExchangeFinished(
            exchangeID: id, outcome: outcome, response: raw.head, responseBody: raw.body, responseBodySize: raw.bodySize, error: nil,
            endedAt: endedAt, attempts: attempts))
        return ClientResponse(
            value: value, request: request, head: raw.head, body: raw.body, exchangeID: id,
            attempts: attempts, startedAt: startedAt, endedAt: endedAt, httpVersion: raw.httpVersion)
    }

    /// `GET /users`: the query is left out, as it varies per call (bad for grouping) and may carry secrets. The name
    /// an exchange gets when nobody named it (adapters use it too).
    public static func operationName(_ request: HTTPRequest) -> String {
        let path = (request.path ?? "/").split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        return "\(request.method.rawValue) \(path)"
    }

    /// Runs `work` in a task that both the caller's cancellation and ``Client/cancelAll()`` can cancel.
    nonisolated(nonsending) func runCancellable(_ id: UUID, _ work: @escaping @Sendable () async throws -> RawResponse) async throws -> RawResponse {
        // Its own task, so that cancelling it cancels this exchange and not the caller's task. An immediate task
        // runs on this thread until it first really suspends, which saves the enqueue and the thread wake-up a
        // `Task.init` costs per request.
        // A request's priority also reaches the executor: a `high` exchange's task runs before `low` ones.
        let priority = RequestMetadata.current.priority.taskPriority
        let task: Task<RawResponse, any Error>
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            task = Task.immediate(priority: priority, operation: work)
        } else {
            task = Task(priority: priority, operation: work)
        }
        inflight.insert(id, task)
        defer { inflight.remove(id) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The middleware folded around the transport: array order out, reverse order back.
    static func chain(_ middlewares: [any ClientMiddleware], _ transport: any ClientTransport) -> Next {
        var handler: Next = { request, body, context in
            try await context.tracker.runAttempt(request, body: body, context: context, transport: transport)
        }
        // A loop, not `reduce`: a closure that passes through a generic parameter is stored in its most general
        // form and called through a reabstraction thunk, one more executor check per middleware a request
        // that a loop does not pay.
        for middleware in middlewares.reversed() {
            let next = handler
            handler = { request, body, context in
                try await middleware.intercept(request, body: body, context: context, next: next)
            }
        }
        return handler
    }

    static func outcome(for error: ClientError) -> ExchangeOutcome {
        if error.stage == .cancelled { return .cancelled }
        if error.underlyingError is any ShortCircuitError { return .shortCircuited }
        if error.stage == .transport { return .transportError }
        if error.stage == .validation { return .httpError }
        return .clientError
    }
}
