import Foundation
import Loupe
import LoupeServe
import LoupeTUI
import LoupeTrace

/// `loupe tui --serve SOURCE`: the server `loupe serve` runs, started with the same options inside the TUI's
/// process, recording every request it serves (misses included, marked served) into the store the TUI shows.
///
/// The TUI's title names the address, its first status line is the server's start line, and the
/// `reset-scenarios` key starts the sequences over; ``stop()`` closes the port when the TUI ends.
final class ServingTUI {
    let running: ServeFlags.Running
    let status: ServingStatus
    private let spool: ServeSpool?
    private let storePath: String

    private init(running: ServeFlags.Running, status: ServingStatus, spool: ServeSpool?, storePath: String) {
        self.running = running
        self.status = status
        self.spool = spool
        self.storePath = storePath
    }

    /// Opens `source` as `loupe serve` does (`filter`: serve's `--filter`) and starts serving it with `flags`,
    /// recording into `store` (named `storePath`). Per-request lines are not printed: the screen covers them,
    /// and the rows say the same.
    static func start(_ source: String, filter: String?, flags: ServeFlags, store: any TraceStoreWriting,
                      storePath: String) async throws -> ServingTUI {
        let redaction = RedactionPolicy()
        let selection = try FilterOption.parse(filter)
        let (library, sourcePath, spool) = try ServeCommand.open(source, redaction: redaction, filter: selection, keptHeaders: flags.matchHeaders)
        let running: ServeFlags.Running
        do {
            running = try await flags.start(library: library, redaction: redaction, store: store) { _ in }
        } catch {
            spool?.remove()
            throw error
        }
        let tls = running.identity != nil
        let summary = ServeCommand.startLine(count: library.requests.count, source: sourcePath, host: flags.host,
                                             port: running.server.port, passthrough: running.options.passthrough,
                                             store: storePath, tls: tls)
        let status = ServingStatus(address: ServeCommand.address(host: flags.host, port: running.server.port, tls: tls),
                                   summary: summary.replacingOccurrences(of: "\n", with: "; "))
        return ServingTUI(running: running, status: status, spool: spool, storePath: storePath)
    }

    /// Shows the server in `app` and gives its reset key the server's sequences.
    func attach(to app: TUIApp) {
        app.serving = status
        let server = running.server
        app.resetScenarios = { server.reset() }
    }

    /// Stops the server (its port closed once this returns), writes what it served, removes a temporary store.
    func stop() async {
        await running.stop()
        spool?.remove()
    }

    /// What is printed after the TUI: the server stopped, and what the store could not take, if anything.
    var stoppedLine: String {
        var line = "loupe serve: stopped; \(status.address) is closed"
        let dropped = running.server.droppedRecordings
        if dropped > 0 {
            line += "; \(Quantity.count(dropped, "served exchange")) not recorded into \(TerminalText.line(storePath)): the store fell behind"
        }
        return line
    }
}
