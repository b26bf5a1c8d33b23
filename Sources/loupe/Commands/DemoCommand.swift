import ArgumentParser
import Foundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeTrace

/// `loupe demo`: a flaky API on loopback, traffic through the client, recorded and shown live.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a flaky API on 127.0.0.1 with traffic through Loupe, recorded and shown live."
    )

    @Option(help: "The trace store to record into (default: demo.sqlite beside the default store).")
    var store: String?

    @Flag(help: "Record without the terminal UI (for scripts).")
    var headless = false

    @Option(help: "With --headless: how many seconds to run.")
    var duration: Double = 10

    @Option(help: "The API's port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 0

    @Option(help: "Concurrent callers in the traffic scenario.")
    var workers: Int = 3

    @Option(help: "Pause between one caller's requests, in milliseconds (0 for as fast as possible).")
    var pause: Int = 250

    func validate() throws {
        guard duration > 0 else { throw ValidationError("--duration must be positive") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (1...256).contains(workers) else { throw ValidationError("--workers must be 1...256") }
        guard pause >= 0 else { throw ValidationError("--pause must not be negative") }
    }

    func run() async throws {
        let storeArgument = store ?? defaultDemoStore()
        let (store, path) = try StoreAccess.openForWriting(storeArgument)
        let server: FlakyAPI.RunningServer
        do {
            server = try await FlakyAPI.start(port: port)
        } catch {
            throw CommandFailure.badInput("cannot start the demo API on 127.0.0.1:\(port): \(error)")
        }
        let inspector = NetworkTraceInspector(store: store)
        let client = DemoClient.make(baseURL: server.baseURL, observer: inspector)
        let traffic = DemoTraffic(client: client, workers: workers, pause: .milliseconds(pause))
        if headless {
            FileHandle.standardError.write(Data("loupe demo: API on \(server.baseURL), recording into \(path) for \(duration) s\n".utf8))
            let sent = await traffic.run(until: .now + .milliseconds(Int64(duration * 1000)))
            await inspector.shutdown()
            await server.stop()
            print("recorded \(sent) exchanges into \(path)")
            return
        }
        let trafficTask = Task { await traffic.run() }
        let result = await Result(catching: { try await Inspector.run(store: store, path: path, replayer: StoreReplayer(inspector: inspector)) })
        trafficTask.cancel()
        _ = await trafficTask.value
        await inspector.shutdown()
        await server.stop()
        try result.get()
        print("recorded into \(path); inspect again with `loupe tui \(path)`")
    }

    func defaultDemoStore() -> String {
        let standard = StoreLocation.defaultPath(environment: ProcessInfo.processInfo.environment)
        return (standard as NSString).deletingLastPathComponent + "/demo.sqlite"
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
