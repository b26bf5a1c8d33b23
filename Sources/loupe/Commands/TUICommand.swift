import ArgumentParser
import Foundation
import LoupeTUI
import LoupeTrace

/// `loupe tui [STORE]`: the live terminal inspector, on a store opened read-only.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tui", abstract: "Open the terminal inspector on a trace store.")

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store). Viewed read-only; created empty if missing, so recordings started later appear live.")
    var store: String?

    @Option(help: "Only show exchanges matching EXPR (the `loupe list --filter` language).")
    var filter: String?

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        // Looking never writes: the store is read-only, and a writer opens only when a replay is recorded.
        let (store, path) = try StoreAccess.openForViewing(store)
        let replayer = StoreReplayer(path: path)
        let result = await Result(catching: {
            try await Inspector.run(
                store: store, path: path, replayer: replayer, filter: filter.map { InspectorFilter($0, store: store) })
        })
        await replayer.shutdown()
        try result.get()
    }
}

/// Runs the inspector on the real terminal, restoring it however the run ends.
enum Inspector {
    static func run(store: any TraceStore, path: String, replayer: (any ExchangeReplaying)?, filter: InspectorFilter? = nil) async throws {
        let app = InspectorApp(store: store, storeName: path, replayer: replayer, filter: filter)
        do {
            try await TerminalInspector.run(app)
        } catch let failure as CursesScreen.Failure {
            throw CommandFailure.badInput("cannot start the terminal UI: \(failure)")
        }
    }
}
