import Foundation
import HTTPTypes
import Loupe
@testable import LoupeAsyncHTTPClient
import Synchronization
import Testing

/// What every compliant server does, against the real AsyncHTTPClient transport on both of its paths (the collected
/// `send` and the streamed body `loupe send` uses): issue 26, items 1 to 4.
@Suite(.timeLimit(.minutes(5))) struct CompliantServerTests {
    /// `{"items": [{"id": 0, "name": "item 0"}, …]}` (243 bytes) gzipped into 100, as Python's gzip writes it.
    static let gzipped = Data(base64Encoded: "H4sIAAAAAAACA6tWyixJzS1WslKIrlbKTAHSBjoKSnmJualAJlhOwUCpVkcBKmmILmmIJGmELmmEJGmMLmmMJGmCLmmCJGmKLmmKJGmGLmmGJGmOLmmuVBtbCwAxs7jL8wAAAA==")!
    static let plain = #"{"items": [{"id": 0, "name": "item 0"}, {"id": 1, "name": "item 1"}, {"id": 2, "name": "item 2"}, {"id": 3, "name": "item 3"}, {"id": 4, "name": "item 4"}, {"id": 5, "name": "item 5"}, {"id": 6, "name": "item 6"}, {"id": 7, "name": "item 7"}]}"#
    /// A 2,150-byte repetitive JSON array gzipped into 79 bytes (27×): an ordinary body AHC's 25× limit refused.
    static let json2k = Data(base64Encoded: "H4sIAAAAAAACA4uuVspMUbJSMNRRUMrPBjJKikpTgeySxPRiIC9aKVEJyEtSiq3VURhVOqp0VOmo0lGlo0pHlY4qJVppLAD7eXYxZggAAA==")!
    /// 200,000 zero bytes gzipped into 229: a small bomb.
    static let bomb = Data(base64Encoded: "H4sIAAAAAAACA+3BMQEAAADCoPVPbQZ/oAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACA1wB7WOBcQA0DAA==")!

    /// A server answering each request on a connection with `answer(requestHead)`, keeping the connection open.
    static func server(_ answer: @escaping @Sendable (String) -> [UInt8]) throws -> RawHTTPServer {
        try RawHTTPServer { connection in
            while true {
                let head = connection.readHead()
                guard !head.isEmpty, connection.write(answer(head)) else { return }
            }
        }
    }

    /// The request line's target: `/cycle/a`.
    static func target(_ head: String) -> String {
        String(head.split(separator: " ", maxSplits: 2).dropFirst().first ?? "/")
    }

    static func head(_ status: String, _ fields: [String]) -> [UInt8] {
        Array(("HTTP/1.1 \(status)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    static func compressed(_ data: Data, coding: String = "gzip") -> [UInt8] {
        head("200 OK", ["Content-Type: application/json", "Content-Encoding: \(coding)", "Content-Length: \(data.count)"]) + Array(data)
    }

    /// Runs `request` through the streaming path (what `loupe send` uses) or the collected one; returns the body.
    static func run(_ request: HTTPRequest, streaming: Bool, transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()) async throws -> (status: Int, body: Data) {
        let client = Client(baseURL: URL(string: "http://127.0.0.1")!, transport: transport)
        guard streaming else {
            let response = try await client.execute(request)
            return (response.status.code, response.body)
        }
        let sink = CollectingBodySink()
        let response = try await client.execute(request, streamingBodyTo: sink)
        #expect(response.value == Int64(sink.data.count))
        return (response.status.code, sink.data)
    }

    static func get(_ server: RawHTTPServer, _ path: String, method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(method: method, url: server.baseURL.appendingPathComponent(path))
    }

    @Test(arguments: [true, false])
    func aGzipBodyWithContentLengthIsComplete(streaming: Bool) async throws {
        let server = try Self.server { _ in Self.compressed(Self.gzipped) }
        defer { server.stop() }
        let (status, body) = try await Self.run(Self.get(server, "gzip"), streaming: streaming)
        #expect(status == 200 && String(decoding: body, as: UTF8.self) == Self.plain)
    }

    @Test(arguments: [("HEAD", "200 OK"), ("GET", "204 No Content"), ("GET", "304 Not Modified")])
    func aResponseWithoutContentIsCompleteWhateverItsLengthSays(method: String, status: String) async throws {
        let server = try Self.server { _ in Self.head(status, ["Content-Type: text/plain", "Content-Length: 6"]) }
        defer { server.stop() }
        for streaming in [true, false] {
            let (code, body) = try await Self.run(Self.get(server, "x", method: HTTPRequest.Method(method)!), streaming: streaming)
            #expect(code == Int(status.prefix(3)) && body.isEmpty)
        }
    }

    @Test(arguments: [true, false])
    func aRedirectCycleFailsAtOnceAndSaysSo(streaming: Bool) async throws {
        let server = try Self.server { head in
            Self.head("302 Found", ["Location: \(Self.target(head) == "/cycle/a" ? "/cycle/b" : "/cycle/a")", "Content-Length: 0"])
        }
        defer { server.stop() }
        let error = await #expect(throws: ClientError.self) { _ = try await Self.run(Self.get(server, "cycle/a"), streaming: streaming) }
        let message = (error?.underlyingError as? TransportError)?.message ?? "\(String(describing: error))"
        #expect(message.contains("redirects went round in a cycle"), "\(message)")
    }

    @Test(arguments: [true, false])
    func moreThanTwentyRedirectsFailAtOnceAndSaySo(streaming: Bool) async throws {
        let server = try Self.server { head in
            let left = Int(Self.target(head).split(separator: "/").last ?? "0") ?? 0
            guard left > 0 else { return Self.head("200 OK", ["Content-Length: 2"]) + Array("ok".utf8) }
            return Self.head("302 Found", ["Location: /hops/\(left - 1)", "Content-Length: 0"])
        }
        defer { server.stop() }
        let (status, body) = try await Self.run(Self.get(server, "hops/20"), streaming: streaming)
        #expect(status == 200 && body == Data("ok".utf8))
        let error = await #expect(throws: ClientError.self) { _ = try await Self.run(Self.get(server, "hops/25"), streaming: streaming) }
        let message = (error?.underlyingError as? TransportError)?.message ?? ""
        #expect(message == "too many redirects (the client follows at most 20)", "\(message)")
    }

    @Test(arguments: [true, false])
    func anOrdinaryRepetitiveBodyInflatesPastTwentyFiveTimes(streaming: Bool) async throws {
        let server = try Self.server { _ in Self.compressed(Self.json2k) }
        defer { server.stop() }
        let (status, body) = try await Self.run(Self.get(server, "json2k"), streaming: streaming)
        #expect(status == 200 && body.count == 2150)
    }

    @Test(arguments: [true, false])
    func aBombPastTheFloorIsRefusedAndTheMessageNamesTheLimit(streaming: Bool) async throws {
        let server = try Self.server { _ in Self.compressed(Self.bomb) }
        defer { server.stop() }
        var options = AsyncHTTPClientTransport.Options()
        options.raiseDecompressionLimit = "--max-decompression-ratio N"
        let transport = AsyncHTTPClientTransport(decompression: DecompressionLimit(ratio: 100, floor: 64 << 10), options: options)
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.run(Self.get(server, "bomb"), streaming: streaming, transport: transport)
        }
        try await transport.shutdown()
        let message = (error?.underlyingError as? TransportError)?.message ?? ""
        #expect(message == "the compressed response body inflates past the decompression limit (100× the compressed size past "
            + "the first 65536 bytes); raise it with --max-decompression-ratio N, or ask for an uncompressed body "
            + "(-H 'Accept-Encoding: identity')", "\(message)")

        // Under the standard floor (1 MiB) the same body is fine; with no limit at all, too.
        #expect(try await Self.run(Self.get(server, "bomb"), streaming: streaming).body.count == 200_000)
        let unlimited = AsyncHTTPClientTransport(decompression: .unlimited)
        #expect(try await Self.run(Self.get(server, "bomb"), streaming: streaming, transport: unlimited).body.count == 200_000)
        try await unlimited.shutdown()
    }

    @Test(arguments: [true, false])
    func aStackOfCodingsIsHandedOnAsSentUnderItsOwnHeader(streaming: Bool) async throws {
        // NIO's decompressor decoded `gzip, gzip` once by its first name and kept the header: neither as sent nor decoded.
        let twice = Data(base64Encoded: "H4sIAAAAAAACA5Pv5mAAASbm1WFamud9/EI3BWloavmuZWXwfXRfnB8oBQDg3HrBIwAAAA==")!
        let server = try Self.server { _ in Self.compressed(twice, coding: "gzip, gzip") }
        defer { server.stop() }
        let (status, body) = try await Self.run(Self.get(server, "twice"), streaming: streaming)
        #expect(status == 200 && body == twice)
    }

    @Test(arguments: [true, false])
    func aBodyThatIsNotWhatItsEncodingSaysIsOneClearError(streaming: Bool) async throws {
        let server = try Self.server { _ in Self.compressed(Data("this is not gzip at all".utf8)) }
        defer { server.stop() }
        let error = await #expect(throws: ClientError.self) { _ = try await Self.run(Self.get(server, "x"), streaming: streaming) }
        let message = (error?.underlyingError as? TransportError)?.message ?? ""
        #expect(message.contains("not the gzip or deflate data its Content-Encoding names (zlib error"), "\(message)")
    }

    @Test func aTimeoutReadsAsTheProjectWritesDurations() {
        // What a --deadline's remainder gave: `longer than its 2.999996754 s timeout`.
        #expect(AttemptDeadline.timedOut(.nanoseconds(2_999_996_754)).message
            == "the attempt took longer than its 3.00 s timeout (response body included)")
        #expect(AttemptDeadline.timedOut(.milliseconds(250)).message.contains("its 250 ms timeout"))
    }

    @Test func theLimitAppliesOnlyPastItsFloor() {
        let limit = DecompressionLimit(ratio: 100, floor: 1000)
        #expect(!limit.exceeded(compressed: 1, inflated: 1000))
        #expect(limit.exceeded(compressed: 1, inflated: 1001))
        #expect(!limit.exceeded(compressed: 100, inflated: 10_000))
        #expect(limit.exceeded(compressed: 100, inflated: 10_001))
        #expect(!DecompressionLimit.unlimited.exceeded(compressed: 1, inflated: .max))
        #expect(!DecompressionLimit(ratio: .max, floor: 0).exceeded(compressed: .max, inflated: .max), "no overflow trap")
        #expect(DecompressionLimit.standard.description == "100× the compressed size past the first 1 MiB")
    }
}

/// Keeps the body it is given.
private final class CollectingBodySink: ResponseBodySink {
    private let bytes = Mutex(Data())
    var data: Data { bytes.withLock { $0 } }
    var canRestart: Bool { true }
    func begin(_ head: HTTPResponse, httpVersion: String?) throws { bytes.withLock { $0 = Data() } }
    func write(_ chunk: Data) throws { bytes.withLock { $0.append(chunk) } }
    func finish(byteCount: Int64) throws {}
}
