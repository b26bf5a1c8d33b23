import Foundation

/// Opens a file in the user's editor and waits for it to close: `$VISUAL`, else `$EDITOR`, else `vi`, run by
/// `/bin/sh` so an editor given with arguments (`code -w`) works.
package struct ExternalEditor: Sendable {
    /// Edits the file at the path; returns a problem when the editor could not run or failed.
    package var edit: @Sendable (String) -> String?

    package init(edit: @escaping @Sendable (String) -> String?) {
        self.edit = edit
    }

    /// Why ``editPrivately(_:named:)`` has nothing to send.
    package struct Problem: Error, Sendable, Hashable {
        package var message: String
        /// What the file held when the editor failed, for a caller that keeps the user's text to reopen.
        package var saved: String?
    }

    /// Edits `text` as a file named `name` in a new directory only this user may enter (0700), and returns what was
    /// saved. The directory goes before this returns, with whatever the editor left beside the file (vim's swap,
    /// backup and undo files): what was edited may be a credential or a body the user would not leave in `/tmp`.
    /// Every edit the TUI makes (held requests, rules, replays) goes through here.
    package func editPrivately(_ text: String, named name: String) -> Result<String, Problem> {
        var template = Array((NSTemporaryDirectory() + "loupe-edit-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            return .failure(Problem(message: "cannot make a private directory in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))"))
        }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // mkdtemp makes it 0700 whatever the umask; said again so the promise does not rest on one libc.
        chmod(directory, 0o700)
        let file = directory + "/" + name.replacingOccurrences(of: "/", with: "-")
        guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            return .failure(Problem(message: "cannot write \(file)"))
        }
        if let problem = edit(file) {
            return .failure(Problem(message: problem, saved: try? String(contentsOfFile: file, encoding: .utf8)))
        }
        guard let saved = try? String(contentsOfFile: file, encoding: .utf8) else {
            return .failure(Problem(message: "the editor left no readable file"))
        }
        return .success(saved)
    }

    /// The user's editor from `environment`, run on the terminal the TUI gave up for it
    /// (``Terminal/suspend(while:)``).
    ///
    /// The editor runs in the TUI's own process group, which is the terminal's foreground group, so it may
    /// read the terminal. Foundation's `Process` starts children in a new process group of their own, which is a
    /// background group: an editor reading the terminal is stopped (SIGTTIN) or gets EIO, and vim and vi exited
    /// with status 1 at once. The signals the TUI ignores (Ctrl-C is the editor's while it
    /// runs) are reset to their defaults in the child, and its signal mask is cleared.
    package static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> ExternalEditor {
        ExternalEditor { path in
            let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
            switch ChildProcess.run(["/bin/sh", "-c", editor + " \"$1\"", "loupe-editor", path], environment: environment) {
            case .failure(let failure):
                return "cannot start the editor '\(editor)': \(String(cString: strerror(failure.code)))"
            case .success(let status):
                return status == 0 ? nil : "the editor '\(editor)' exited with status \(status)"
            }
        }
    }
}

/// `posix_spawn` and `waitpid`, in the caller's process group, with default signal handling in the child.
enum ChildProcess {
    /// The exit status (128 + N for signal N), or the `errno` the spawn failed with.
    static func run(_ arguments: [String], environment: [String: String]) -> Result<Int32, SpawnError> {
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t?
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], nil, &attributes, argv, envp)
        guard spawned == 0 else { return .failure(SpawnError(code: spawned)) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return .failure(SpawnError(code: errno)) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7F
        return .success(signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
    }

    struct SpawnError: Error {
        var code: Int32
    }
}
