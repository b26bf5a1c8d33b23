import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeTUI
import LoupeTrace

/// Replays for the inspector: sends through a recording client into the same store, so the replay appears as a
/// new row marked as a replay of the original.
struct StoreReplayer: ExchangeReplaying {
    let inspector: NetworkTraceInspector

    func replay(_ exchange: TraceExchange) async throws -> String {
        guard let url = URL(string: exchange.url) else { return "replay failed: bad recorded URL" }
        let client = Client(baseURL: url, transport: AsyncHTTPClientTransport(), observer: inspector)
        do {
            let response = try await TraceReplayer(client: client).replay(exchange)
            await inspector.flush()
            return "replayed \(exchange.method) \(exchange.pathAndQuery) → \(response.status.code) in \(Formatting.milliseconds(response.duration))"
        } catch let error as ClientError {
            await inspector.flush()
            return "replay failed: \(error.underlyingError)"
        } catch {
            return "replay failed: \(error)"
        }
    }
}
