import Foundation
import HTTPTypes
import Hummingbird
import Loupe
@testable import LoupeAsyncHTTPClient
import NIOCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `AsyncHTTPClientTransport.stream` against real loopback servers: a large body arrives whole while the buffer
/// between the event loop and the reader stays within its watermark, a reader that stops or is cancelled ends the
/// request on the wire, the attempt timeout bounds the body, and a streamed request body is sent.
@Suite(.timeLimit(.minutes(5))) struct StreamingTransportTests {
    /// 1,024 cycles of the 251-byte pattern: every full block continues the pattern where the previous one ended.
    static let block = (0..<251 * 1024).map { UInt8($0 % 251) }

    @Test func aLargeBodyArrivesWholeWhileTheBufferStaysWithinItsWatermark() async throws {
        let size = 48 << 20
        let written = Shared(0)
        let server = try RawHTTPServer { connection in
            connection.readHead()
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n") else { return }
            var sent = 0
            while sent < size {
                let count = min(Self.block.count, size - sent)
                guard connection.write(Self.block[0..<count]) else { return }
                sent += count
                written.set(sent)
            }
        }
        defer { server.stop() }
        let watermarks = ResponseBodyPipe.Watermarks(high: 1 << 20, low: 256 << 10)
        let pipe = ResponseBodyPipe(watermarks: watermarks)
        let outcome = Shared((bytes: 0, intact: false, writtenWhileStalled: 0))
        let probe = StreamProbe(pipe: pipe) { response in
            // Read nothing until the buffer is full, then leave the connection time to overrun it if it would. The
            // waits are the point: backpressure on a real socket shows only as bytes that do *not* arrive while the
            // reader stalls, which no event signals and no injected clock reaches (the result itself is awaited).
            while pipe.peakBufferedBytes < watermarks.high { try await Task.sleep(for: .milliseconds(5)) }  // a real socket fills it: no event says when
            try await Task.sleep(for: .milliseconds(300))  // a real socket's overrun: nothing signals its absence
            let writtenWhileStalled = written.value
            var bytes = 0
            var intact = true
            for try await chunk in response.body {
                // Each chunk starts and ends where the pattern says: nothing lost, repeated or reordered between them.
                intact = intact && chunk.first == UInt8(bytes % 251) && chunk.last == UInt8((bytes + chunk.count - 1) % 251)
                bytes += chunk.count
            }
            outcome.set((bytes, intact, writtenWhileStalled))
        }
        let client = Client(baseURL: server.baseURL, transport: probe)
        _ = try await client.execute(HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("big")))

        let result = outcome.value
        #expect(result.bytes == size)
        #expect(result.intact)
        // One read past the high watermark at most (a read buffer grows to 1 MiB at most).
        #expect(pipe.peakBufferedBytes < watermarks.high + (1 << 20), "peak \(pipe.peakBufferedBytes)")
        // While the reader stalled, the server could not send the body: the pause reached the socket.
        #expect(result.writtenWhileStalled < size / 2, "\(result.writtenWhileStalled) bytes written while stalled")
    }

    @Test func aReaderThatStopsEarlyEndsTheRequestOnTheWire() async throws {
        let (closed, server) = try Self.serverThatWaitsForTheClientToLeave()
        defer { server.stop() }
        let probe = StreamProbe(pipe: ResponseBodyPipe()) { response in
            for try await _ in response.body { break }
        }
        let client = Client(baseURL: server.baseURL, transport: probe)
        _ = try await client.execute(HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("stop")))
        // The server's read returns once the client closed the connection; the body it declared is far from sent.
        for await _ in closed { break }
    }

    @Test func cancellingTheReaderEndsTheRequestOnTheWire() async throws {
        let (closed, server) = try Self.serverThatWaitsForTheClientToLeave()
        defer { server.stop() }
        let firstChunk = AsyncStream<Void>.makeStream()
        let probe = StreamProbe(pipe: ResponseBodyPipe()) { response in
            for try await _ in response.body { firstChunk.continuation.yield() }
        }
        let client = Client(baseURL: server.baseURL, transport: probe)
        let task = Task { try await client.execute(HTTPRequest(method: .get, url: server.baseURL.appendingPathComponent("wait"))) }
        // Cancelled while it waits for a chunk that never comes.
        for await _ in firstChunk.stream { break }
        task.cancel()
        _ = await task.result
        for await _ in closed { break }
    }

    @Test func theAttemptTimeoutBoundsAStreamedBody() async throws {
        let server = try RawHTTPServer { connection in
            connection.readHead()
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n") else { return }
            while connection.write("x") { connection.pause(milliseconds: 50) }  // the server trickles: its pacing, not a test waiting
        }
        defer { server.stop() }
        let probe = StreamProbe(pipe: ResponseBodyPipe()) { response in
            for try await _ in response.body {}
        }
        let client = Client(baseURL: server.baseURL, transport: probe)
        _ = try await expectTrickleTimesOut(client, at: server.baseURL)
    }

    @Test func withoutAnAttemptTimeoutOnlyTheWaitForTheHeadIsBounded() async throws {
        let silent = try RawHTTPServer { connection in
            connection.readHead()
            var byte: UInt8 = 0
            _ = read(connection.fd, &byte, 1)  // until the client gives up
        }
        defer { silent.stop() }
        let transport = AsyncHTTPClientTransport(options: .init(defaultTimeout: .milliseconds(300)))
        let probe = StreamProbe(base: transport, pipe: ResponseBodyPipe()) { _ in }
        let error = await #expect(throws: ClientError.self) {
            try await Client(baseURL: silent.baseURL, transport: probe)
                .execute(HTTPRequest(method: .get, url: silent.baseURL.appendingPathComponent("silent")))
        }
        #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)

        // A body that takes longer than that default, but keeps coming, is read to its end.
        let slow = try RawHTTPServer { connection in
            connection.readHead()
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n") else { return }
            for _ in 0..<6 {
                guard connection.write("y") else { return }
                connection.pause(milliseconds: 120)  // the server trickles: its pacing, not a test waiting
            }
        }
        defer { slow.stop() }
        let body = Shared(Data())
        let reader = StreamProbe(base: transport, pipe: ResponseBodyPipe()) { response in
            for try await chunk in response.body { body.update { $0.append(chunk) } }
        }
        _ = try await Client(baseURL: slow.baseURL, transport: reader)
            .execute(HTTPRequest(method: .get, url: slow.baseURL.appendingPathComponent("slow")))
        #expect(body.value == Data("yyyyyy".utf8))
    }

    @Test(arguments: [nil, 300_000] as [Int64?])
    func aStreamedRequestBodyIsSent(length: Int64?) async throws {
        let router = Router()
        router.post("count") { request, _ -> String in
            var count = 0
            for try await part in request.body { count += part.readableBytes }
            return "\(count) \(request.headers[.contentLength] ?? "chunked")"
        }
        try await withLocalServer(router) { baseURL in
            let upload = Loupe.RequestBody.stream(length: length, replayable: false) {
                AsyncThrowingStream { continuation in
                    for _ in 0..<3 { continuation.yield(Data(repeating: 7, count: 100_000)) }
                    continuation.finish()
                }
            }
            let sink = CollectingSink()
            _ = try await Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
                .execute(HTTPRequest(method: .post, url: baseURL.appendingPathComponent("count")), body: upload,
                         streamingBodyTo: sink)
            #expect(sink.text == "300000 \(length.map { "\($0)" } ?? "chunked")")
        }
    }

    /// A server that declares a 100 MB body, sends 100 KB of it, then waits; the stream yields once the client
    /// closed the connection.
    static func serverThatWaitsForTheClientToLeave() throws -> (AsyncStream<Void>, RawHTTPServer) {
        let (closed, continuation) = AsyncStream<Void>.makeStream()
        let server = try RawHTTPServer { connection in
            connection.readHead()
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n"),
                  connection.write(Self.block[0..<100_000]) else { return }
            var byte: UInt8 = 0
            while read(connection.fd, &byte, 1) > 0 {}
            continuation.yield()
        }
        return (closed, server)
    }
}

/// A transport that streams through the AsyncHTTPClient transport with a given pipe and hands the response to
/// `read`, so a test reads the body as it likes, with the client's real context (its timeout).
private struct StreamProbe: ClientTransport {
    var base = AsyncHTTPClientTransport()
    let pipe: ResponseBodyPipe
    let read: @Sendable (StreamedResponse) async throws -> Void

    func send(_ request: HTTPRequest, body: Loupe.RequestBody?, context: Loupe.RequestContext) async throws -> RawResponse {
        let response = try await base.stream(request, body: body, context: context, through: pipe)
        try await read(response)
        return RawResponse(head: response.head, httpVersion: response.httpVersion)
    }
}

/// A sink that keeps the body in memory.
private final class CollectingSink: ResponseBodySink {
    private let data = Shared(Data())
    var text: String { String(decoding: data.value, as: UTF8.self) }
    var canRestart: Bool { true }
    func begin(_ head: HTTPResponse, httpVersion: String?) throws { data.set(Data()) }
    func write(_ chunk: Data) throws { data.update { $0.append(chunk) } }
    func finish(byteCount: Int64) throws {}
}

/// A value shared between a test, its server's thread and its reader.
private final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
    func update(_ change: (inout Value) -> Void) { mutex.withLock { change(&$0) } }
}
