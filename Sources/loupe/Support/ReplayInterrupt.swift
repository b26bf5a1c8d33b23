import Dispatch
import Foundation

/// Ctrl-C during `loupe replay`: the first one stops the run (no new requests, those in flight cancelled), so the
/// replays sent so far are recorded and summarised; a second one ends the process as usual.
final class ReplayInterrupt {
    private let source: any DispatchSourceSignal

    /// Calls `stop` on the first SIGINT.
    init(_ stop: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)  // delivered to the dispatch source instead of ending the process
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            signal(SIGINT, SIG_DFL)
            stop()
        }
        source.resume()
    }

    /// Puts SIGINT back to its default.
    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
