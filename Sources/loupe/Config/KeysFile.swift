import Foundation
import LoupeTUI
import LoupeConfig
import LoupeTrace

/// The user's keymap file, `$XDG_CONFIG_HOME/loupe/keys.toml` (`~/.config/loupe/keys.toml`).
///
/// ```toml
/// # bindings per context; a command bound here loses its default keys in that context
/// [global]
/// quit = "Q"
/// [exchanges]
/// filter = ["f", "ctrl-f"]
/// ```
///
/// A missing file is no file. Anything else wrong with it (not a regular file, over 64 KiB, not UTF-8, a TOML
/// syntax error, a value of the wrong type, an unknown key name, one key given to two commands in one section)
/// is one `loupe: FILE:LINE: …` line and exit 2, so a typo never silently leaves the defaults in place. Context
/// and command names are checked when the keymap applies the overrides.
enum KeysFile {
    /// The largest file read; a keymap is a few hundred bytes, and a bound keeps a stray big file from stalling.
    static let maximumSize = 64 * 1024

    /// Where the file is looked for.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories.join(XDGDirectories.configHome(environment: environment), "loupe/keys.toml")
    }

    /// The overrides in the file at `path`; `[]` when nothing is there.
    ///
    /// - Throws: `CommandFailure.badInput` with one line naming the file (with `~` for the home folder) and,
    ///   where known, the line.
    static func load(path: String = defaultPath(), environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(CommandFailure) -> [KeyOverride] {
        let shown = displayPath(path, environment: environment)
        do {
            guard let data = try BoundedFileReader.read(path, limit: maximumSize) else { return [] }
            return try KeysFileParser.overrides(in: data)
        } catch {
            throw .badInput(error.message(file: shown))
        }
    }

    /// `FILE:LINE` (or `FILE` when the line cannot be found) for a problem found after loading, such as a context
    /// or command name the keymap does not know: `loupe: \(position(...)): unknown command 'fitler' in [exchanges]`.
    static func position(
        context: String, command: String?, path: String = defaultPath(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let shown = displayPath(path, environment: environment)
        guard let data = try? BoundedFileReader.read(path, limit: maximumSize),
              let text = String(validating: data, as: UTF8.self) else { return shown }
        let lines = TOMLLines(text)
        let line = command.flatMap { lines.line(ofKey: $0, inSection: context) } ?? lines.line(ofSection: context)
        return line.map { "\(shown):\($0)" } ?? shown
    }

    /// `path` with the home folder written `~`, as users know the file.
    static func displayPath(_ path: String, environment: [String: String]) -> String {
        let home = XDGDirectories.home(environment: environment)
        guard home != "/", path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }
}
