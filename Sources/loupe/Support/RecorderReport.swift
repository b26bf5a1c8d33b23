import Foundation
import Loupe
import LoupeTrace
import LoupeFormats

/// The line a recording command prints after shutting its recorder down when exchanges did not reach the store
/// (the queue was full, or the store failed a write: disk full, file made read-only). The request's own result and
/// exit code are not affected; silence here means everything was stored.
enum RecorderReport {
    /// Prints ``line(written:dropped:failed:lastError:path:)`` for `inspector` to stderr, if there is one.
    static func warnIfLost(_ inspector: NetworkTraceInspector, path: String) {
        guard let line = line(written: inspector.writtenCount, dropped: inspector.droppedCount,
                              failed: inspector.failedExchangeCount, lastError: inspector.lastWriteError, path: path)
        else { return }
        StandardStreams.error(line + "\n")
    }

    /// `loupe: recorder: 3 exchanges not stored in PATH (1 dropped, …; 2 lost to store errors, last: …); 5 stored`,
    /// or nil when nothing was lost.
    static func line(written: Int, dropped: Int, failed: Int, lastError: String?, path: String) -> String? {
        guard dropped > 0 || failed > 0 else { return nil }
        var reasons: [String] = []
        if dropped > 0 { reasons.append("\(dropped) dropped because the recorder fell behind") }
        if failed > 0 { reasons.append("\(failed) lost to store errors" + (lastError.map { ", last: \($0)" } ?? "")) }
        let text = "recorder: \(Quantity.count(dropped + failed, "exchange")) not stored in \(path) (\(reasons.joined(separator: "; "))); "
            + "\(written) stored"
        return "loupe: " + TerminalText.line(text)
    }
}
