import Foundation
@testable import LoupeTUI
import Testing

/// The editor must run in the terminal's foreground process group, ours: Foundation's `Process` put it in a group
/// of its own (a background group), where vim and every editor reading the terminal exited 1 (issue 25.2).
@Suite struct ExternalEditorTests {
    @Test func theEditorRunsInOurProcessGroupWithCtrlCAtItsDefault() throws {
        let file = NSTemporaryDirectory() + "loupe-editor-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        // The shell writes its process group (field 5 of /proc/self/stat) and its ignored signals into the file.
        let editor = ExternalEditor.system(environment: [
            "PATH": "/usr/bin:/bin",
            "EDITOR": #"sh -c 'cut -d" " -f5 /proc/$$/stat > "$1"; grep SigIgn /proc/$$/status >> "$1"' editor"#,
        ])
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        #expect(editor.edit(file) == nil)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first.flatMap { Int32($0) } == getpgrp())
        let ignored = lines.last.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
        #expect(ignored & (1 << (UInt64(SIGINT) - 1)) == 0, "Ctrl-C is the editor's while it runs")
    }

    @Test func aFailingEditorIsReported() {
        let editor = ExternalEditor.system(environment: ["PATH": "/usr/bin:/bin", "EDITOR": "exit 3; true"])
        #expect(editor.edit("/dev/null") == "the editor 'exit 3; true' exited with status 3")
    }
}
