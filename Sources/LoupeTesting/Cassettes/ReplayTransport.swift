import HTTPTypes
import Loupe
import LoupeTrace

/// Answers every request from a cassette and never touches the network: the replay half of a
/// ``RecordingTransport`` / ``ReplayTransport`` pair.
///
/// A request that matches no recorded interaction fails with ``CassetteError/Code/noMatch``, whose message lists
/// the closest recordings with each matcher's verdict. Identical requests are answered in recorded order.
public struct ReplayTransport: StreamingClientTransport {
    /// The cassette being played.
    public let cassette: Cassette
    private let transport: CassetteTransport

    /// Plays `cassette` with no upstream: whatever its mode, a request it would record or pass through fails with
    /// ``CassetteError/Code/noUpstream`` instead of reaching a network.
    public init(cassette: Cassette) {
        self.cassette = cassette
        self.transport = CassetteTransport(cassette: cassette, upstream: nil)
    }

    /// Plays the recording at `path` (``CassetteMode/none``: the file must exist).
    ///
    /// - Parameters:
    ///   - matching: what a request must match to be answered (method, path and query by default).
    ///   - allowPlaybackRepeats: lets the last matching interaction answer again once all have been played.
    ///   - secrets: the values to put back where the recording holds their placeholders.
    public init(
        path: String, matching: [CassetteMatcher] = .default, allowPlaybackRepeats: Bool = false,
        secrets: [String: String] = [:], redaction: RedactionPolicy = RedactionPolicy()
    ) throws(CassetteError) {
        self.init(cassette: try Cassette(
            path: path, mode: .none, matching: matching, allowPlaybackRepeats: allowPlaybackRepeats, secrets: secrets,
            redaction: redaction))
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        try await transport.send(request, body: body, context: context)
    }

    /// Streams as the cassette's transport does: a server-sent event stream (`client.events`) is recorded or played
    /// event by event, connection by connection. For WebSocket, use `cassette.webSocketTransport(…)`.
    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        try await transport.stream(request, body: body, context: context)
    }
}
