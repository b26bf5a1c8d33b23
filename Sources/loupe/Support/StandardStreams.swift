import Foundation
import CStdio

/// Writes to standard output and standard error without trapping.
///
/// `FileHandle.write(_:)` (the form without `contentsOf:`) traps when the write fails, so `loupe export --har - >
/// /dev/full`, or any command run with standard error closed, crashed. Standard output's failures are the command's
/// own (its one `loupe: …` line and exit 2, as for a file it cannot write); standard error's are dropped, as there
/// is nowhere left to report them.
enum StandardStreams {
    /// Writes `data` to standard output; throws the command's failure when it cannot.
    static func output(_ data: Data) throws {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            throw CommandFailure.badInput("cannot write to standard output: \(reason(error))")
        }
    }

    /// Flushes what `print` buffered; throws the command's failure when standard output took less than it was given
    /// at any point (a command that printed into a full disk must not exit 0).
    static func flushOutput() throws {
        let code = loupe_stdout_flush_error()
        guard code != 0 else { return }
        throw CommandFailure.badInput("cannot write to standard output: " + (code > 0 ? String(cString: strerror(code)) : "a write failed"))
    }

    /// Writes `text` to standard error as it is (a line carries its own `\n`), if it can.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    /// `No space left on device`, not Foundation's wrapped description of it.
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let message = strerror(Int32(underlying.code)) {
            return String(cString: message)
        }
        return (error as NSError).localizedDescription
    }
}
