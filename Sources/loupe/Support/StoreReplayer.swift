import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeTUI
import LoupeTrace
import LoupeWebSocket
import LoupeReplay
import Synchronization

/// Replays for the TUI: sends through a recording client into the same store, so the replay appears as a
/// new row marked as a replay of the original.
///
/// `loupe tui` views its store read-only and makes a replayer with ``init(path:)``: the writer (and with it any
/// pruning to the store's bounds) is opened on the first replay only, so looking never writes. `loupe demo`
/// records anyway and passes its recorder.
final class StoreReplayer: ExchangeReplaying {
    private enum Recorder {
        case notOpened(path: String)
        case open(NetworkTraceInspector, store: SQLiteTraceStore?, path: String)
    }

    private let recorder: Mutex<Recorder>
    /// Where replacements for redacted credentials come from (``ReplayCredentials``).
    private let environment: [String: String]

    /// Records replays with `inspector` (already recording into the viewed store).
    init(inspector: NetworkTraceInspector, environment: [String: String] = ProcessInfo.processInfo.environment) {
        recorder = Mutex(.open(inspector, store: nil, path: ""))
        self.environment = environment
    }

    /// Opens the store at `path` for writing on the first replay.
    init(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        recorder = Mutex(.notOpened(path: path))
        self.environment = environment
    }

    func suppliedHeaderNames(for exchange: TraceExchange) -> Set<String> {
        Set(ReplayCredentials.supplied(for: exchange, environment: environment).map { $0.name.lowercased() })
    }

    func suppliedQueryNames(for exchange: TraceExchange) -> Set<String> {
        Set(ReplayCredentials.suppliedQuery(for: exchange, environment: environment).keys)
    }

    func replay(_ exchange: TraceExchange) async throws -> String {
        try await replayResult(exchange).message
    }

    func replayResult(_ exchange: TraceExchange) async throws -> ExchangeReplayResult {
        let inspector: NetworkTraceInspector
        switch openRecorder() {
        case .success(let opened): inspector = opened
        case .failure(let failure): return ExchangeReplayResult(message: "replay failed: \(failure.message)")
        }
        if exchange.stream?.kind == .grpc {
            // A unary gRPC call, through grpc-swift (ReplaySafety asked first).
            do {
                let (line, _, code, duration, _) = try await GRPCReplayer.replay(
                    exchange, observer: inspector, credentials: ReplayCredentials.supplied(for: exchange, environment: environment))
                await inspector.flush()
                return ExchangeReplayResult(message: line, status: code == 0 ? 200 : nil, duration: duration)
            } catch let failure as CommandFailure {
                return ExchangeReplayResult(message: "replay failed: \(failure.message)")
            } catch {
                await inspector.flush()
                return ExchangeReplayResult(message: "replay failed: \(error)")
            }
        }
        guard let url = URL(string: exchange.url) else { return ExchangeReplayResult(message: "replay failed: bad recorded URL") }
        let client = Client(baseURL: url, transport: AsyncHTTPClientTransport(), observer: inspector)
        do {
            let queryValues = ReplayCredentials.suppliedQuery(for: exchange, environment: environment)
            var headers = HTTPFields()
            for (name, value) in ReplayCredentials.supplied(for: exchange, environment: environment) {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            if exchange.stream?.kind == .webSocket {
                // The client's recorded messages go out again at their recorded offsets (ReplaySafety asked first).
                let started = ContinuousClock.now
                let replayer = TraceReplayer(client: client, webSocketTransport: NIOWebSocketTransport(), queryValues: queryValues)
                let (_, status) = try await replayer.replayAny(exchange, headers: headers)
                await inspector.flush()
                let elapsed = started.duration(to: .now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                return ExchangeReplayResult(
                    message: "replayed the WebSocket \(exchange.pathAndQuery) → \(status), closed after \(Quantity.duration(seconds))",
                    status: status, duration: elapsed)
            }
            let response = try await TraceReplayer(client: client, queryValues: queryValues).replay(exchange, headers: headers)
            await inspector.flush()
            return ExchangeReplayResult(
                message: "replayed \(exchange.method) \(exchange.pathAndQuery) → \(response.status.code) in \(Quantity.duration(response.duration))",
                status: response.status.code, duration: .seconds(response.duration))
        } catch let error as ClientError {
            await inspector.flush()
            return ExchangeReplayResult(message: "replay failed: \(error.underlyingError)")
        } catch {
            return ExchangeReplayResult(message: "replay failed: \(error)")
        }
    }

    /// Stops the recorder this replayer opened, if any, and says on stderr what its store pruned.
    func shutdown() async {
        let opened: (NetworkTraceInspector, SQLiteTraceStore, String)? = recorder.withLock { state in
            guard case .open(let inspector, let store?, let path) = state else { return nil }
            return (inspector, store, path)
        }
        guard let (inspector, store, path) = opened else { return }
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: path)
        StoreAccess.reportPrunes(store, path: path)
    }

    private struct OpenFailure: Error { var message: String }

    /// The recorder, opening the store for writing if this is the first replay. Opening may wait on another
    /// writer's lock (up to SQLite's busy timeout): that happens on the replay's task, not the UI's.
    private func openRecorder() -> Result<NetworkTraceInspector, OpenFailure> {
        recorder.withLock { state in
            switch state {
            case .open(let inspector, _, _):
                return .success(inspector)
            case .notOpened(let path):
                do {
                    let store = try SQLiteTraceStore(path: path)
                    let inspector = NetworkTraceInspector(store: store)
                    state = .open(inspector, store: store, path: path)
                    return .success(inspector)
                } catch {
                    // Left unopened: the next replay tries again (another writer's lock may be gone by then).
                    return .failure(OpenFailure(message: "cannot record into the store: \(error)"))
                }
            }
        }
    }
}
