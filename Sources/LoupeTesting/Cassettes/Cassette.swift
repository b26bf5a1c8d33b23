import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import LoupeFormats
import Synchronization

/// Recorded HTTP interactions used as a test fixture, VCR-style: the first run records real responses into a file,
/// later runs replay them without a network.
///
/// The file is a Loupe store (any path) or a HAR file (a path ending in `.har`, readable in git diffs and browser
/// tools). Everything saved goes through ``RedactionPolicy`` first, as the flight recorder's traffic does, and the
/// `secrets` you name are saved as placeholders (`<TOKEN>`) and put back in what is played, so no credential
/// reaches the file. ``transport(upstream:)`` gives the ``ClientTransport`` to build a client on; `upstream` is the
/// real transport used when the ``CassetteMode`` records.
///
/// ```swift
/// let cassette = try Cassette(path: "Fixtures/items.har", secrets: ["TOKEN": token])
/// let client = Client(baseURL: api, transport: cassette.transport(upstream: AsyncHTTPClientTransport()))
/// _ = try await client.send(ListItems(page: 1))
/// try cassette.assertAllPlayed()
/// ```
///
/// In Swift Testing, the ``Testing/Trait/cassette(_:mode:matching:allowPlaybackRepeats:requireAllPlayed:secrets:redaction:maxAge:onExpiry:directory:filePath:)``
/// trait opens one for a test and checks it afterwards; the test reaches it through ``current``.
public final class Cassette: Sendable {
    /// The cassette the enclosing `.cassette(…)` trait opened for the running test, if any.
    @TaskLocal public static var current: Cassette?

    /// The cassette file.
    public let path: String
    /// How it behaves: the mode it was opened with, except ``CassetteMode/all`` for ``CassetteMode/once`` without a
    /// file and for an expired recording being re-recorded (``CassetteExpiry/reRecord``).
    public let mode: CassetteMode
    /// What a live request must match to be answered by a recorded interaction; all of them must match.
    public let matchers: [CassetteMatcher]
    /// Whether an interaction may answer again once every matching one has been played (only when not recording).
    public let allowPlaybackRepeats: Bool

    /// How a played stream's messages are timed: ``LoupeTrace/StreamPacing/fast`` (the default) delivers them at
    /// once; ``LoupeTrace/StreamPacing/recorded`` waits the recorded gaps on the client's clock (its
    /// `ClientConfiguration.clock`, so a test with a `ManualClock` decides when time passes).
    public let streamPacing: StreamPacing

    let redactor: CassetteRedactor
    /// The streams being recorded or played, by exchange: a reconnection continues its stream's interaction.
    let streams = Mutex(CassetteStreamTable())
    let now: @Sendable () -> Date
    /// The interactions and what has been played (the transport decides through it, under the lock).
    let playlist: Mutex<CassettePlaylist>

    /// Opens the cassette at `path` (nothing is read in ``CassetteMode/all`` or ``CassetteMode/passthrough``).
    ///
    /// - Parameters:
    ///   - mode: when to replay and when to record; ``CassetteMode/once`` records only when the file is missing.
    ///   - matching: matchers that must all pass for a recorded interaction to answer (by default method, path and
    ///     query in any order).
    ///   - allowPlaybackRepeats: lets an interaction answer again once all matching ones have been played; by
    ///     default each answers once, in recorded order.
    ///   - secrets: values saved as `<NAME>` and restored on playback; names are letters, digits, `_` and `-`, and
    ///     values at least the policy's `minimumScrubLength` (6) bytes, or empty (nothing to hide).
    ///   - redaction: the policy applied before anything is saved (by default the recorder's default lists).
    ///   - maxAge: how old the recording may be (from its oldest interaction), and `onExpiry` what then.
    ///   - streamPacing: how a played stream's messages are timed: at once (`.fast`, the default) or with the
    ///     recorded gaps on the client's clock (`.recorded`).
    ///   - now: the clock for recording times and age.
    public init(
        path: String, mode: CassetteMode = .once, matching: [CassetteMatcher] = .default,
        allowPlaybackRepeats: Bool = false, secrets: [String: String] = [:], redaction: RedactionPolicy = RedactionPolicy(),
        maxAge: Duration? = nil, onExpiry: CassetteExpiry = .warn, streamPacing: StreamPacing = .fast,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(CassetteError) {
        self.path = path
        self.streamPacing = streamPacing
        self.matchers = matching
        self.allowPlaybackRepeats = allowPlaybackRepeats
        self.now = now
        let redactor = CassetteRedactor(
            secrets: try CassetteSecrets(secrets, minimumLength: redaction.minimumScrubLength, path: path), policy: redaction)
        self.redactor = redactor
        var mode = mode
        var interactions: [TraceExchange] = []
        if mode == .once || mode == .newEpisodes || mode == .none {
            if CassetteFile.exists(path) {
                interactions = try CassetteFile.load(path).map(redactor.stored)
            } else if mode == .none {
                throw CassetteError(.notFound, path: path, message: "cassette \(path) does not exist, and mode .none never records")
            }
        }
        if let maxAge, let expiry = CassetteAge.expired(interactions, maxAge: maxAge, now: now(), path: path) {
            switch onExpiry {
            case .warn: CassetteAge.warn(expiry)
            case .fail: throw CassetteError(.expired, path: path, message: expiry)
            case .reRecord where mode == .none: throw CassetteError(.expired, path: path, message: expiry + "; mode .none cannot re-record it")
            case .reRecord:
                mode = .all
                interactions = []
            }
        }
        // Once a file exists, `once` only replays; without one it records from scratch, as `all` does.
        if mode == .once, !CassetteFile.exists(path) { mode = .all }
        self.mode = mode
        self.playlist = Mutex(CassettePlaylist(interactions))
    }

    /// A transport that answers from this cassette and, when the mode records or passes through, sends with
    /// `upstream` (which may be `nil` for a cassette that only replays).
    public func transport(upstream: (any ClientTransport)? = nil) -> CassetteTransport {
        CassetteTransport(cassette: self, upstream: upstream)
    }

    /// A WebSocket transport that plays this cassette's recorded conversations and, when the mode records or
    /// passes through, connects with `upstream` (`NIOWebSocketTransport` on Linux); pass it to `client.webSocket`.
    public func webSocketTransport(upstream: (any WebSocketTransport)? = nil) -> CassetteWebSocketTransport {
        CassetteWebSocketTransport(cassette: self, upstream: upstream)
    }

    /// Returns once no stream this cassette records or plays has a connection open, every recorded one saved.
    ///
    /// A stream ends on its own task after the code reading it stops (the client cancels the connection when the
    /// loop over `client.events` is left): await this before the test reads the file or the process ends. The
    /// `.cassette(…)` trait awaits it after the test (for up to 10 s, then it fails the test).
    public func streamsEnded() async {
        _ = await streamsEnded(within: nil)
    }

    /// ``streamsEnded()`` for at most `timeout`: whether every stream ended in time.
    func streamsEnded(within timeout: Duration?) async -> Bool {
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ended = streams.withLock { table in
                if table.open > 0 { table.waiters[id] = continuation }
                return table.open == 0
            }
            if ended { return continuation.resume(returning: true) }
            guard let timeout else { return }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard let waiter = self?.streams.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
                waiter.resume(returning: false)
            }
        }
    }

    /// The interactions as stored, in recorded order (new recordings included).
    public var interactions: [TraceExchange] { playlist.withLock { $0.interactions } }

    /// The interactions no request has played yet, in recorded order.
    public var unplayedInteractions: [TraceExchange] {
        playlist.withLock { list in list.unplayed.map { list.interactions[$0] } }
    }

    /// Throws ``CassetteError/Code/unplayedInteractions`` listing every interaction no request played: a recording
    /// the code under test no longer makes is a fixture that no longer describes it.
    ///
    /// A played stream that departed from its recording (``CassetteError/Code/noMatch``) is thrown first, even if
    /// the code under test swallowed the error its stream ended with.
    public func assertAllPlayed() throws(CassetteError) {
        if let failure = streams.withLock({ $0.failures.first }) { throw failure }
        let unplayed = playlist.withLock { list in list.unplayed.map { ($0 + 1, CassetteRequest(list.interactions[$0])) } }
        guard !unplayed.isEmpty else { return }
        let lines = unplayed.map { number, request in
            "  #\(number) \(CassetteMatcher.shown(request.method)) \(TerminalText.line(request.pathAndQuery))"
        }
        throw CassetteError(.unplayedInteractions, path: path, message: """
            \(unplayed.count) recorded interaction\(unplayed.count == 1 ? " was" : "s were") never played from \(path)
            """ + "\n" + lines.joined(separator: "\n"))
    }
}
