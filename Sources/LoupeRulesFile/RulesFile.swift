import Foundation
import Logging
import LoupeConfig
import LoupeRules
import LoupeTrace
import Synchronization

/// A rules file an app reads (`LOUPE_RULES=PATH`), and reads again when it changes.
///
/// A file that is missing, unreadable or wrong is said once, in one line through swift-log, and the app runs with
/// no rules from it (never with half a file); the next change is read again. Polled once a second (its
/// modification time, size and inode): portable, and a second is quick enough for a person editing a file.
public final class RulesFile: Sendable {
    public let path: String
    private let book: RuleBook
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Reads `path` into `book` now, then watches it until ``stop()``.
    public init(path: String, book: RuleBook, interval: Duration = .seconds(1)) {
        self.path = path
        self.book = book
        let initial = Self.signature(path)
        load()
        let task = Task { [weak self] in
            var last = initial
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                let now = Self.signature(self.path)
                if now != last {
                    last = now
                    self.load()
                }
            }
        }
        self.task.withLock { $0 = task }
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Stops watching (the rules read stay).
    public func stop() { task.withLock { $0?.cancel() } }

    /// Reads the file now: its rules replace the ones it gave before.
    public func load() {
        do {
            let rules = try Self.read(path)
            book.replaceAll(from: .file(path), with: rules)
        } catch {
            book.replaceAll(from: .file(path), with: [], quietly: true)
            book.logger.error("\(Self.problemLine(error, path: path))")
        }
    }

    /// `loupe: rules file PATH:LINE: reason; running with no rules from it`.
    public static func problemLine(_ error: ConfigFileError, path: String) -> String {
        TerminalText.line("loupe: rules file \(error.message(file: path)); running with no rules from it")
    }

    /// The rules in the file at `path`; a missing file is an error here (it was asked for).
    public static func read(_ path: String) throws(ConfigFileError) -> [Rule] {
        guard let data = try BoundedFileReader.read(path, limit: RulesDocument.maxBytes, what: "a rules file is a few rules")
        else { throw ConfigFileError("no such file") }
        return try RulesDocument.parse(data)
    }

    private static func signature(_ path: String) -> [Int] {
        var status = stat()
        guard stat(path, &status) == 0 else { return [] }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        return [Int(modified.tv_sec), Int(modified.tv_nsec), Int(status.st_size), Int(status.st_ino)]
    }
}

extension RuleBook {
    /// The book of an app that opted in: one when a link is configured or `LOUPE_RULES` names a file (then read
    /// and watched), `nil` otherwise, so rules never act in an app that did not ask for them. Give `redaction` the
    /// recorder's policy: held requests leave the app redacted by it.
    public static func forApp(
        linkConfigured: Bool, environment: [String: String] = ProcessInfo.processInfo.environment,
        maxHold: Duration = .seconds(60), logger: Logger = Logger(label: "loupe.rules"),
        redaction: RedactionPolicy = RedactionPolicy()
    ) -> (book: RuleBook, file: RulesFile?)? {
        let path = environment["LOUPE_RULES"].flatMap { $0.isEmpty ? nil : $0 }
        guard linkConfigured || path != nil else { return nil }
        let book = RuleBook(maxHold: maxHold, logger: logger, redaction: redaction)
        return (book, path.map { RulesFile(path: $0, book: book) })
    }
}
