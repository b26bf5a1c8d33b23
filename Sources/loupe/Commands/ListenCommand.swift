import ArgumentParser
import Dispatch
import Foundation
import LoupeLink
import LoupeTrace

/// `loupe listen [ADDR:]PORT --store PATH`: a collector. Linked apps' traffic goes into a store; one line per app
/// that links or leaves; the counts on exit (Ctrl-C or SIGTERM).
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Collect linked apps' traffic into a store (no screen).",
        discussion: """
            Prints the link an app needs (LOUPE_LINK=loupe://SECRET@HOST:PORT?fp=sha256:…): give it to `loupe demo \
            --link`, `loupe send --link`, or an app's LOUPE_LINK. TLS with this listener's own certificate (made on \
            first use in $XDG_STATE_HOME/loupe/link), pinned by the app; the app proves the secret inside TLS.
            """)

    @Argument(help: ArgumentHelp(
        "Where to listen: PORT, ADDR:PORT or [IPv6]:PORT; 127.0.0.1 unless an address is given (default port: \(ListenAddress.defaultPort)).",
        valueName: "[ADDR:]PORT"), transform: ListenOption.parse)
    var address: ListenAddress = ListenAddress()

    @Flag(help: "Plain TCP instead of TLS, on a loopback address only (the link printed is loupe+tcp://…).")
    var insecureLoopback = false

    @Option(help: "The trace store linked exchanges are written into (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    func run() async throws {
        let (store, path) = try StoreAccess.openForWriting(store)
        let listener = try await ListenOption.start(at: address, store: store, insecureLoopback: insecureLoopback) { event in
            print(event.line)
            try? StandardStreams.flushOutput()
        }
        print("\(LinkAddress.environmentVariable)=\(listener.link)")
        print("listening on \(listener.address), storing into \(path)")
        try? StandardStreams.flushOutput()
        await StopSignals.wait()
        await listener.stop()
        print(ListenOption.summary(listener.counts))
    }
}

/// Waits for SIGINT or SIGTERM, either of which ends a collector cleanly.
enum StopSignals {
    static func wait() async {
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
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
