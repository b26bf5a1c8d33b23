import Foundation
import Loupe

/// Whether a test transport answers at once or after a delay on its injected clock.
public enum MockBehaviour: Sendable, Hashable {
    /// Answer as soon as asked.
    case immediate
    /// Answer after this long, as a slow server would.
    case delayed(Duration)
}

/// Waiting the way a real transport would: for the requested time, but never past the attempt's timeout.
enum SimulatedWait {
    /// Sleeps `duration` on `clock`; when the attempt's timeout is shorter, sleeps that long and throws `timedOut`.
    static func wait(_ duration: Duration, clock: any Clock<Duration>, context: RequestContext) async throws {
        try await TransportFault.wait(duration, clock: clock, context: context)
    }
}
