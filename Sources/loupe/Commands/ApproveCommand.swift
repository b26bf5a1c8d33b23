import ArgumentParser
import Foundation
import LoupeApproval
import LoupeTrace

/// `loupe approve [STORE] [--watch]`: a person decides on what agents asked `loupe mcp --allow-actions` to do.
struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve or refuse the actions agents asked `loupe mcp` for, one by one.",
        discussion: "Each request shows exactly what it would send or write; anything but y refuses it. Needs a terminal.")

    @Argument(help: "The trace store `loupe mcp` serves (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Flag(help: "Keep waiting for new requests until interrupted.")
    var watch = false

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandFailure.badInput("approve asks a person: run it in a terminal")
        }
        let path = StoreAccess.path(store)
        let queue = AgentQueue(storePath: path)
        var asked = 0
        while true {
            let waiting = queue.pending()
            for (id, entry) in waiting {
                print("\(TerminalText.line(entry.origin)) asks to \(TerminalText.line(entry.summary))")
                for line in entry.detail { print("    " + TerminalText.line(line)) }
                print("Approve? [y/N] ", terminator: "")
                try StandardStreams.flushOutput()
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                let approved = answer == "y" || answer == "yes"
                // The asker may have given up meanwhile; then the decision is moot, and saying so is honest.
                guard queue.pending().contains(where: { $0.id == id }) else {
                    print("withdrawn before the answer: nothing was done")
                    continue
                }
                try queue.decide(id, approved: approved)
                print(approved ? "approved" : "refused")
                asked += 1
                if answer == nil { return }
            }
            if !watch {
                if asked == 0 { print("No agent requests waiting for \(path).") }
                return
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
