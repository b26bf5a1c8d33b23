import Foundation

/// Opens a file in the user's editor and waits for it to close: `$VISUAL`, else `$EDITOR`, else `vi`, run by
/// `/bin/sh` so an editor given with arguments (`code -w`) works.
package struct ExternalEditor: Sendable {
    /// Edits the file at the path; returns a problem when the editor could not run or failed.
    package var edit: @Sendable (String) -> String?

    package init(edit: @escaping @Sendable (String) -> String?) {
        self.edit = edit
    }

    /// The user's editor from `environment`.
    package static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> ExternalEditor {
        ExternalEditor { path in
            let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", editor + " \"$1\"", "loupe-editor", path]
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                return "cannot start the editor '\(editor)': \(error)"
            }
            return process.terminationStatus == 0 ? nil : "the editor '\(editor)' exited with status \(process.terminationStatus)"
        }
    }
}
