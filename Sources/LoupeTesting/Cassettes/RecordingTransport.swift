import HTTPTypes
import Loupe
import LoupeTrace

/// Sends every request with a real transport and records it into a cassette: the recording half of a
/// ``RecordingTransport`` / ``ReplayTransport`` pair.
///
/// Use it to make a fixture on purpose (for example a script that refreshes recordings); a test that should record
/// only when its fixture is missing wants ``Cassette`` in ``CassetteMode/once``, or the `.cassette(…)` trait.
/// Requests are saved redacted, with the named `secrets` as placeholders; the client still receives the live
/// response unchanged.
public struct RecordingTransport: StreamingClientTransport {
    /// The cassette being recorded.
    public let cassette: Cassette
    private let transport: CassetteTransport

    /// Records through `upstream` into `cassette`, which must be in a mode that records (``CassetteMode/all`` or
    /// ``CassetteMode/newEpisodes``, or ``CassetteMode/once`` without a file).
    public init(cassette: Cassette, upstream: any ClientTransport) throws(CassetteError) {
        guard cassette.mode == .all || cassette.mode == .newEpisodes else {
            throw CassetteError(.cannotWrite, path: cassette.path, message: """
                cassette \(cassette.path) is in mode .\(cassette.mode.rawValue), which does not record; \
                open it with mode .all or .newEpisodes to record
                """)
        }
        self.cassette = cassette
        self.transport = CassetteTransport(cassette: cassette, upstream: upstream)
    }

    /// Records every request through `upstream` into the file at `path` (a `.har` file or a Loupe store),
    /// replacing what it held (``CassetteMode/all``).
    public init(
        path: String, upstream: any ClientTransport, secrets: [String: String] = [:],
        redaction: RedactionPolicy = RedactionPolicy()
    ) throws(CassetteError) {
        try self.init(cassette: Cassette(path: path, mode: .all, secrets: secrets, redaction: redaction), upstream: upstream)
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
