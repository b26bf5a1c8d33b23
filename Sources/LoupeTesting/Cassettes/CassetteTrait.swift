import Foundation
import Loupe
import LoupeTrace
import Testing

/// A Swift Testing trait that opens a cassette for one test, makes it ``Cassette/current`` while the test runs,
/// and afterwards waits for its streams to end (``Cassette/streamsEnded()``) and fails the test if recorded
/// interactions were never played.
///
/// Create it with ``Testing/Trait/cassette(_:mode:matching:allowPlaybackRepeats:requireAllPlayed:secrets:redaction:maxAge:onExpiry:directory:filePath:)``.
/// Every case of a parameterized test opens the same file, one after another or at once: give such tests a
/// ``Cassette`` per case, opened in the body, instead.
public struct CassetteTrait: TestTrait, TestScoping {
    /// The cassette file.
    public let path: String
    /// Whether the test fails when interactions were left unplayed.
    public let requireAllPlayed: Bool
    private let open: @Sendable (String) throws -> Cassette

    /// Opens the cassette, runs the test with it as ``Cassette/current``, then (when the test passed and
    /// ``requireAllPlayed`` is set) throws ``CassetteError/Code/unplayedInteractions`` if interactions were left.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let cassette = try open(path)
        try await Cassette.$current.withValue(cassette) { try await function() }
        // A stream the test stopped reading ends (and is saved) on its own task; one still open well after the test
        // (a reading task never cancelled) is reported rather than waited for forever.
        if await !cassette.streamsEnded(within: Self.streamGrace) {
            Issue.record(Comment(rawValue: """
                a stream recorded or played by cassette \(path) was still open \(Quantity.duration(Self.streamGrace)) after \
                the test ended: cancel the task reading it (what it recorded since its last connection began is not saved)
                """))
        }
        if requireAllPlayed { try cassette.assertAllPlayed() }
    }

    /// How long a stream may stay open after the test.
    static let streamGrace: Duration = .seconds(10)

    fileprivate init(path: String, requireAllPlayed: Bool, open: @escaping @Sendable (String) throws -> Cassette) {
        self.path = path
        self.requireAllPlayed = requireAllPlayed
        self.open = open
    }
}

extension Trait where Self == CassetteTrait {
    /// A cassette named `name` for this test, in `directory` (by default a `Cassettes` folder beside the test's
    /// source file). A name without an extension gets `.har`; end it in `.sqlite` for a Loupe store.
    ///
    /// ```swift
    /// @Test(.cassette("items", secrets: ["TOKEN": token]))
    /// func listsItems() async throws {
    ///     let transport = try #require(Cassette.current).transport(upstream: AsyncHTTPClientTransport())
    ///     …
    /// }
    /// ```
    ///
    /// The other parameters are ``Cassette``'s; with `requireAllPlayed` (the default) the test fails when it did
    /// not play every recorded interaction.
    public static func cassette(
        _ name: String, mode: CassetteMode = .once, matching: [CassetteMatcher] = .default,
        allowPlaybackRepeats: Bool = false, requireAllPlayed: Bool = true, secrets: [String: String] = [:],
        redaction: RedactionPolicy = RedactionPolicy(), maxAge: Duration? = nil, onExpiry: CassetteExpiry = .warn,
        directory: String? = nil, filePath: String = #filePath
    ) -> Self {
        let folder = directory.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Cassettes")
        var file = folder.appendingPathComponent(name)
        if file.pathExtension.isEmpty { file.appendPathExtension("har") }
        return CassetteTrait(path: file.path, requireAllPlayed: requireAllPlayed) { path in
            try Cassette(path: path, mode: mode, matching: matching, allowPlaybackRepeats: allowPlaybackRepeats,
                         secrets: secrets, redaction: redaction, maxAge: maxAge, onExpiry: onExpiry)
        }
    }
}
