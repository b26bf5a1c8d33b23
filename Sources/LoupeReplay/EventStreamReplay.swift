import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// A recorded server-sent event stream sent again as a stream: `client.events` through the replaying client, which
/// reconnects as the server's `retry` and `Last-Event-ID` say, read to its end, so the replay is recorded message by
/// message (a stream, not one body) and `--diff` compares the events.
struct EventStreamReplay {
    let client: Client

    /// Where the capture leaves the id.
    final class CapturedID: Sendable {
        let value = Mutex<UUID?>(nil)
    }

    /// Notes the exchange id of the request it sees (the outermost of the replay's middleware).
    struct ExchangeIDCapture: ClientMiddleware {
        let id: CapturedID

        nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                       next: Next)
            async throws -> RawResponse {
            id.value.withLock { $0 = $0 ?? context.exchangeID }
            return try await next(request, body, context)
        }
    }

    /// Replays `exchange` as `request`; returns the new exchange's id and its status (200 when it streamed).
    func replay(_ exchange: TraceExchange, request: HTTPRequest, body: RequestBody?, timeout: Duration?)
        async throws -> (UUID?, Int) {
        let captured = CapturedID()
        let replaying = Client(baseURL: client.baseURL, transport: client.transport,
                               middlewares: [ExchangeIDCapture(id: captured)] + client.middlewares,
                               observer: client.observer, configuration: client.configuration)
        var request = request
        // The replay starts the stream from its beginning, as the original did.
        request.headerFields[HTTPField.Name("Last-Event-ID")!] = nil
        // A failure (a refused stream, a dropped one that never came back) is the outcome's to record. An error
        // status is an answer, as it is for any replayed request: returned, so the report counts it among the
        // statuses (and a plain replay fails on it, a diff compares it), not as an error without a status.
        do {
            for try await _ in replaying.events(
                request, body: body,
                options: RequestOptions(operation: exchange.operation, timeout: timeout, replayOf: exchange.id)) {}
            // A cancelled reader's sequence just ends: without this, an interrupted stream replay counted as a
            // whole one and `loupe replay` exited 0 (issue 44, item 13), where a plain replay cut short fails.
            if Task.isCancelled {
                throw ClientError(operation: exchange.operation, request: request, stage: .cancelled,
                                  underlyingError: CancellationError(), exchangeID: captured.value.withLock { $0 })
            }
        } catch let error as ClientError where error.stage == .validation {
            guard let status = (error.underlyingError as? UnacceptableStatusError)?.status else { throw error }
            return (captured.value.withLock { $0 }, status)
        }
        return (captured.value.withLock { $0 }, 200)
    }
}

