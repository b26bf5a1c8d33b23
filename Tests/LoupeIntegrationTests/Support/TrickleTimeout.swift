import Foundation
import HTTPTypes
import Loupe
import Testing

/// Sends `GET /trickle` (a server that trickles its body forever) with a 2 s attempt timeout and checks that it
/// fails as that timeout, in bounded time; returns the error for the caller's own checks.
///
/// 2 s, not less: the callers check that the body bytes which came before the deadline are kept, so the head must
/// be through before it, and on a 2-core CI machine running every suite at once a head took over 0.5 s.
func expectTrickleTimesOut(_ client: Client, at baseURL: URL) async throws -> ClientError? {
    let started = ContinuousClock.now
    let error = await #expect(throws: ClientError.self) {
        try await client.execute(
            HTTPRequest(method: .get, url: baseURL.appendingPathComponent("trickle")),
            options: RequestOptions(timeout: .seconds(2)))
    }
    let elapsed = ContinuousClock.now - started
    // Bounded, not fast: the trickle alone would last for hours; a loaded 2-core CI machine may take seconds.
    #expect(elapsed < .seconds(30), "took \(elapsed)")
    #expect(elapsed >= .milliseconds(1950))
    let failure = try #require(error?.underlyingError as? TransportError)
    #expect(failure.kind == .timedOut)
    #expect(failure.message == "the attempt took longer than its 2.00 s timeout (response body included)")
    return error
}
