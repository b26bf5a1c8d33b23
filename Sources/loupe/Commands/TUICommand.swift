import ArgumentParser
import Foundation
import LoupeTUI
import LoupeTrace

/// `loupe tui [STORE]`: the live terminal inspector.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tui", abstract: "Open the terminal inspector on a trace store.")

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store). Created empty if missing, so recordings started later appear live.")
    var store: String?

    @Option(help: "Only show exchanges matching EXPR (the `loupe list --filter` language).")
    var filter: String?

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        let (store, path) = try StoreAccess.openForWriting(store)
        let inspector = NetworkTraceInspector(store: store)
        try await Inspector.run(
            store: store, path: path, replayer: StoreReplayer(inspector: inspector),
            filter: filter.map { InspectorFilter($0, store: store) })
        await inspector.shutdown()
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
