import Dispatch
import Foundation
import LoupeLink
import LoupeTrace

/// `link-profile listen ADDR:PORT --store PATH`: `loupe listen`'s collector (Sources/loupe/Commands/ListenCommand.swift)
/// on the same parts: the listener identity from Loupe's state folder, a SQLite store with the default bounds, one
/// `LinkListener`; it prints the `LOUPE_LINK=` line on start and the same closing line on SIGTERM or SIGINT.
enum ProfileListener {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, arguments[1] == "--store" else {
            print("usage: link-profile listen ADDR:PORT --store PATH")
            exit(2)
        }
        let address = try ListenAddress(parsing: arguments[0])
        let store = try SQLiteTraceStore(path: arguments[2], bounds: .default)
        let listener = try await LinkListener.start(
            at: address, identity: try LinkIdentity.loadOrCreate(), store: store
        ) { event in
            print(event.line)
            fflush(nil)  // every output stream: `stdout` itself is shared mutable state to Swift 6
        }
        print("\(LinkAddress.environmentVariable)=\(listener.link)")
        print("listening on \(listener.address), storing into \(arguments[2])")
        fflush(nil)  // every output stream: `stdout` itself is shared mutable state to Swift 6
        await stopSignal()
        await listener.stop()
        let counts = listener.counts
        print("received \(counts.stored) exchange(s) from \(counts.linked) link(s); apps reported \(counts.droppedByApps) "
            + "dropped; refused \(counts.refused) connection(s)")
        fflush(nil)  // every output stream: `stdout` itself is shared mutable state to Swift 6
    }

    /// Returns at the first SIGINT or SIGTERM.
    private static func stopSignal() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        for await _ in stream { break }
        sources.forEach { $0.cancel() }
    }
}
