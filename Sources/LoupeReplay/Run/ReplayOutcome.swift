import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// What one replay did: the exchange it recorded, its status or its error, and how long it took.
package struct ReplayOutcome: Sendable, Equatable {
    /// The recorded exchange this sends again.
    package var originalID: UUID
    /// The new exchange recorded for this replay (`nil` when nothing was sent: the request could not be rebuilt).
    package var replayID: UUID?
    /// Sent only to learn what changes between identical requests (`--noise-runs`), not compared itself.
    package var isNoiseRun: Bool
    /// The final status, when a response arrived.
    package var status: Int?
    /// Why no response arrived: its kind for counting (`connect failed`, `middleware`), and the full text.
    package var errorKind: String?
    package var error: String?
    /// Seconds from sending to the end of the exchange (all attempts).
    package var duration: TimeInterval

    package init(originalID: UUID, replayID: UUID?, isNoiseRun: Bool = false, status: Int? = nil,
                 errorKind: String? = nil, error: String? = nil, duration: TimeInterval) {
        self.originalID = originalID
        self.replayID = replayID
        self.isNoiseRun = isNoiseRun
        self.status = status
        self.errorKind = errorKind
        self.error = error
        self.duration = duration
    }
}

extension TraceReplayer {
    /// Replays `exchange` once and says what happened; never throws. `clock` times it.
    package func outcome<C: Clock<Duration>>(
        of exchange: TraceExchange, baseURL: URL?, headers: HTTPFields, timeout: Duration?, isNoiseRun: Bool, clock: C
    ) async -> ReplayOutcome {
        let start = clock.now
        var outcome = ReplayOutcome(originalID: exchange.id, replayID: nil, isNoiseRun: isNoiseRun, duration: 0)
        do {
            let (id, status) = try await replayAny(exchange, baseURL: baseURL, headers: headers, timeout: timeout)
            outcome.replayID = id
            outcome.status = status
        } catch let error as ClientError {
            outcome.replayID = error.exchangeID
            outcome.status = error.response.map { Int($0.status.code) }
            if let transport = error.underlyingError as? TransportError {
                outcome.errorKind = transport.kind.description
            } else {
                outcome.errorKind = error.stage.description
            }
            outcome.error = String(describing: error.underlyingError)
        } catch {
            outcome.errorKind = "not sent"
            outcome.error = String(describing: error)
        }
        let elapsed = start.duration(to: clock.now)
        outcome.duration = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return outcome
    }
}
