import Foundation
import Synchronization

/// Gives the terminal back when the process dies of a fatal signal (a Swift trap is SIGILL or SIGTRAP, a stack
/// overflow SIGSEGV, `abort` SIGABRT) while curses owns it, so no crash leaves the user's shell raw and blind.
///
/// A signal handler may only call async-signal-safe functions, so it does not call `endwin`: it puts back the
/// terminal modes saved before curses started (`tcsetattr`) and writes the escape sequences that leave the
/// alternate screen and show the cursor (`write`). Then it restores the previous handler (the Swift runtime's
/// backtracer, or the default) and raises the signal again, so the crash is reported and the exit status is the
/// signal's, as before.
enum TerminalRescue {
    /// The signals that end the process without running any Swift code of ours.
    static let fatalSignals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV, SIGSYS]

    /// Saves the terminal's modes and installs the handlers; call before curses changes the terminal.
    static func arm() {
        guard !armed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = tcgetattr(STDIN_FILENO, saved.modes)
        saved.hasModes.store(true, ordering: .releasing)
        installAlternateStack()
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = rescueHandler
            // SA_ONSTACK: a stack overflow leaves no stack to run the handler on.
            action.sa_flags = Int32(SA_ONSTACK)
            sigemptyset(&action.sa_mask)
            _ = sigaction(signal, &action, saved.previous + Int(signal))
        }
    }

    /// Puts the previous handlers back; call once curses has restored the terminal itself.
    static func disarm() {
        guard armed.exchange(false, ordering: .acquiringAndReleasing) else { return }
        saved.hasModes.store(false, ordering: .releasing)
        for signal in fatalSignals { _ = sigaction(signal, saved.previous + Int(signal), nil) }
    }

    private static let armed = Atomic<Bool>(false)
    private static let saved = SavedState()

    private static func installAlternateStack() {
        let size = 64 * 1024
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        stack.ss_size = size
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
    }

    /// Runs inside the signal handler: async-signal-safe calls only.
    fileprivate static func rescue(_ signal: Int32) {
        if saved.hasModes.load(ordering: .acquiring) {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, saved.modes)
            _ = write(STDOUT_FILENO, saved.reset.baseAddress, saved.reset.count)
        }
        _ = sigaction(signal, saved.previous + Int(signal), nil)
        _ = raise(signal)
    }
}

/// Storage the signal handler reads: allocated once, never freed, written only before the handlers are installed.
// @unchecked Sendable: `modes` and `previous` are written by `arm()` before any handler that reads them is
// installed (and `disarm()` only reads them); the flag that says whether `modes` is valid is atomic.
private final class SavedState: @unchecked Sendable {
    let modes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    let hasModes = Atomic<Bool>(false)
    /// Leave the alternate screen, show the cursor, keypad off, attributes off, mouse reports and bracketed paste
    /// off; allocated
    /// here because a signal handler must not allocate.
    let reset: UnsafeMutableBufferPointer<UInt8>

    init() {
        modes.initialize(to: termios())
        previous.initialize(repeating: sigaction(), count: 65)
        let bytes = Array("\u{1B}[?1049l\u{1B}[?25h\u{1B}[?1l\u{1B}>\u{1B}[0m\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l\u{1B}[?2004l\r\n".utf8)
        reset = .allocate(capacity: bytes.count)
        _ = reset.initialize(from: bytes)
    }
}

private let rescueHandler: @convention(c) (Int32) -> Void = { signal in
    TerminalRescue.rescue(signal)
}
