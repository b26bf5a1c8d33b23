import Foundation
import HTTPTypes
import Loupe
import Testing

/// Sends `GET /trickle` (a server that trickles its body forever) with a 0.5 s attempt timeout and checks that it
/// fails as that timeout, in bounded time; returns the error for the caller's own checks.
func expectTrickleTimesOut(_ client: Client, at baseURL: URL) async throws -> ClientError? {
    let started = ContinuousClock.now
    let error = await #expect(throws: ClientError.self) {
        try await client.execute(
            HTTPRequest(method: .get, url: baseURL.appendingPathComponent("trickle")),
            options: RequestOptions(timeout: .milliseconds(500)))
    }
    let elapsed = ContinuousClock.now - started
    // Bounded, not fast: the trickle alone would last for hours; a loaded 2-core CI machine may take seconds.
    #expect(elapsed < .seconds(30), "took \(elapsed)")
    #expect(elapsed >= .milliseconds(450))
    let failure = try #require(error?.underlyingError as? TransportError)
    #expect(failure.kind == .timedOut)
    #expect(failure.message == "the attempt took longer than its 0.5 s timeout (response body included)")
    return error
}
