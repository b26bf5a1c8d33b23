import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Loupe
import LoupeGRPC
import LoupeTrace
import Synchronization

// Issue 47's budget for `grpc-callgrind.sh`: unary gRPC calls over loopback HTTP/2 (grpc-swift's client and server
// on grpc-swift-nio-transport, in one process), one after another, bare or recorded by `LoupeGRPCInterceptor` into
// a SQLite file. Messages are raw bytes (no swift-protobuf on either side), so what differs between the shapes is
// the interceptor and the recorder alone.
//   swift build -c release --product grpc-profile
//   .build/release/grpc-profile recorded-sqlite 2000
//
// No async main (valgrind 3.19 dies on one, see cpu-profile): the main thread blocks on a semaphore.

struct RawSerializer: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
}

struct RawDeserializer: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ bytes: Bytes) throws -> [UInt8] { bytes.withUnsafeBytes { Array($0) } }
}

let echo = MethodDescriptor(fullyQualifiedService: "loupe.bench.Echo", method: "Unary", type: .unary)

/// Answers each unary call with its request's bytes.
struct EchoService: RegistrableRPCService {
    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(forMethod: echo, deserializer: RawDeserializer(), serializer: RawSerializer()) { request, _ in
            var last: [UInt8] = []
            for try await message in request.messages { last = message }
            let answer = last
            return StreamingServerResponse(accepted: .success(.init(metadata: [:]) { writer in
                try await writer.write(answer)
                return [:]
            }))
        }
    }
}

/// What `blocking` waits for.
final class BlockingOutcome<T: Sendable>: Sendable {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<T?>(nil)
}

func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let outcome = BlockingOutcome<T>()
    Task.detached {
        let result = await work()
        outcome.result.withLock { $0 = result }
        outcome.done.signal()
    }
    outcome.done.wait()
    return outcome.result.withLock { $0! }
}

let arguments = CommandLine.arguments.dropFirst()
// `grpc-profile unindexed-store PATH`: a new store at PATH whose search index never indexes a row (its end mark
// raised past any sequence), for `recorded-sqlite-unindexed` (grpc-callgrind.sh makes it before counting).
if arguments.first == "unindexed-store", let path = arguments.dropFirst().first {
    do {
        try SQLiteTraceStore(path: path).close()
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [path, "UPDATE store_setting SET value = 9223372036854775807 WHERE key = 'search_end';"]
        try shell.run()
        shell.waitUntilExit()
        exit(shell.terminationStatus)
    } catch {
        FileHandle.standardError.write(Data("grpc-profile: \(error)\n".utf8))
        exit(1)
    }
}
let shape = arguments.first ?? "recorded-sqlite"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 2_000
guard ["bare", "recorded-sqlite", "recorded-sqlite-unindexed"].contains(shape), (1...1_000_000).contains(count) else {
    FileHandle.standardError.write(Data("usage: grpc-profile bare|recorded-sqlite|recorded-sqlite-unindexed [COUNT]\n".utf8))
    exit(2)
}

let failures = blocking { () async -> Int in
    do {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var recorder: NetworkTraceInspector?
        var store: SQLiteTraceStore?
        let path = folder.appendingPathComponent("t.sqlite").path
        if shape == "recorded-sqlite-unindexed" {
            // The same store without the search index's triggers: what the index costs the write of each call. The
            // store is a copy of one grpc-callgrind.sh made beforehand (sqlite3's shell dropped the triggers), since a
            // process started under valgrind cannot start the shell itself.
            guard let template = ProcessInfo.processInfo.environment["GRPC_PROFILE_UNINDEXED_STORE"] else { return -1 }
            try FileManager.default.copyItem(atPath: template, toPath: path)
        }
        if shape != "bare" {
            store = try SQLiteTraceStore(path: path)
            recorder = store.map { NetworkTraceInspector(store: $0) }
        }
        let server = GRPCServer(
            transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
            services: [EchoService()])
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.serve() }
            guard let port = try await server.transport.listeningAddress.ipv4?.port else { return -1 }
            let transport = try HTTP2ClientTransport.Posix(
                target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
            let interceptors: [any ClientInterceptor] = recorder.map { [LoupeGRPCInterceptor(recorder: $0)] } ?? []
            let failed = try await withGRPCClient(transport: transport, interceptors: interceptors) { client in
                var failed = 0
                let message = Array("{\"item\":\"LP-1\",\"quantity\":3}".utf8)
                for _ in 0..<count {
                    do {
                        _ = try await client.unary(
                            request: ClientRequest(message: message, metadata: ["x-request-tag": "bench"]),
                            descriptor: echo, serializer: RawSerializer(), deserializer: RawDeserializer(),
                            options: .defaults) { try $0.message }
                    } catch { failed += 1 }
                }
                return failed
            }
            await recorder?.shutdown()
            // Closing indexes the rows still waiting: the index's whole cost is counted.
            try store?.close()
            server.beginGracefulShutdown()
            try await group.waitForAll()
            return failed
        }
    } catch {
        FileHandle.standardError.write(Data("grpc-profile: \(error)\n".utf8))
        return -1
    }
}
print("\(shape) \(count) calls, \(failures) failed")
exit(failures == 0 ? 0 : 1)
