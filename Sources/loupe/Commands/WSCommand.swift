import ArgumentParser
import Dispatch
import Foundation
import HTTPTypes
import Loupe
import LoupeLink
import LoupeTrace
import LoupeWebSocket
import Synchronization

/// `loupe ws URL`: a WebSocket client like websocat. Each line of standard input is sent as a text message; each
/// message received is printed on a line of its own (binary ones as `<binary N bytes: base64>`). The connection is
/// one exchange in the store, recorded message by message both ways. End of input closes it (1000) once the server
/// has been quiet for `--linger` (so the replies to the last lines are printed), then waits for the server's close.
struct WSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ws",
        abstract: "Open a WebSocket: standard input lines out as text messages, messages in printed; all recorded.",
        discussion: """
            Like websocat: each line read is sent as a text message, each message received is printed on its own line \
            (binary as <binary N bytes: BASE64>). At the end of input, messages still arriving are printed until \
            the server has been quiet for --linger seconds (at most --close-timeout), then the connection is closed \
            with 1000 and loupe waits up to --close-timeout for the server's close. Exits 0 when it closed \
            normally (1000, 1001 or 1005), 1 when the handshake failed or went unanswered for --timeout, the close \
            went unanswered, the server closed it otherwise, or loupe failed it (1009 for a message over 16 MiB, \
            1007 for text that is not UTF-8, 1002 for a masked frame or a close code never valid on the wire).
            """
    )

    @Argument(help: "The ws(s):// or http(s):// URL.")
    var url: String

    @Option(name: [.customShort("H"), .customLong("header")], help: "A handshake header, 'Name: value' (repeatable).",
            transform: HeaderArgument.parse)
    var headers: [HeaderArgument] = []

    @Option(help: "The trace store to record into.")
    var store: String?

    @Option(help: ArgumentHelp("Also stream the exchange to a listener (`loupe listen` and `loupe tui --listen` print the link; default: $LOUPE_LINK; on a shared machine prefer LOUPE_LINK, which `ps` does not show).",
                               valueName: "LINK"), transform: LinkOption.parse)
    var link: LinkAddress?

    @Option(help: ArgumentHelp(
        "After the end of input, close once nothing has arrived for this long, in seconds (0.001 to 86400; default: 0.5).",
        valueName: "SECONDS"), transform: DurationArgument.seconds)
    var linger = DurationArgument(seconds: 0.5)

    @Option(help: ArgumentHelp(
        "The longest wait for the server to go quiet after the end of input, and for its answer to the close, in seconds (0.001 to 86400; default: 5).",
        valueName: "SECONDS"), transform: DurationArgument.seconds)
    var closeTimeout = DurationArgument(seconds: 5)

    @Option(help: ArgumentHelp(
        "The longest wait for the server's answer to the handshake, in seconds (0.001 to 86400; default: 10).",
        valueName: "SECONDS"), transform: DurationArgument.seconds)
    var timeout = DurationArgument(seconds: 10)

    @Flag(help: "Do not ask the server for permessage-deflate compression.")
    var noCompression = false

    @OptionGroup(title: "Redaction") var redaction: RedactionFlags

    func validate() throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              ["ws", "wss", "http", "https"].contains(scheme), parsed.host != nil else {
            throw ValidationError(redaction.policy.redact(text: "'\(url)' is not an absolute ws(s) or http(s) URL", about: url))
        }
        if let problem = PortArgument.problem(in: parsed) { throw ValidationError(redaction.policy.redact(text: "'\(url)': \(problem)", about: url)) }
    }

    func run() async throws {
        var fields = HeaderArgument.fields(headers)
        if fields[.userAgent] == nil { fields[.userAgent] = "loupe" }
        let request = HTTPRequest(method: .get, url: URL(string: url)!, headerFields: fields)
        let (store, storePath) = try StoreAccess.openForWriting(store)
        defer { StoreAccess.reportPrunes(store, path: storePath) }
        let link = try LinkOption.start(link, appName: "loupe ws")
        let inspector = NetworkTraceInspector(store: store, configuration: .init(redaction: redaction.policy, forwarders: [link]))
        // No HTTP transport is used: the handshake's bottom is the WebSocket transport.
        let client = Client(baseURL: request.url!, transport: Self.NoHTTP(), observer: inspector)
        let outcome: Result<WebSocketClose?, any Error>
        do {
            let socket = try await client.webSocket(
                request, transport: NIOWebSocketTransport(), options: RequestOptions(operation: "ws"),
                webSocket: WebSocketOptions(compression: !noCompression, closeTimeout: closeTimeout.duration,
                                            handshakeTimeout: timeout.duration))
            let close = try await Self.run(socket, lines: Self.standardInputLines(),
                                           end: WSInputEnd(linger: linger.duration, limit: closeTimeout.duration))
            // The messages end at the close, a moment before the exchange does: shutting the recorder down
            // before that lost the whole exchange ("the recorder fell behind").
            await socket.exchangeEnded()
            outcome = .success(close)
        } catch {
            outcome = .failure(error)
        }
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: storePath)
        LinkOption.report(link)
        switch outcome {
        case .success(let close):
            guard let close else { return }
            if ![1000, 1001, 1005].contains(close.code) {
                let reason = close.reason.isEmpty ? "" : " \(close.reason)"
                throw CommandFailure.failed(redaction.policy.redact(
                    text: "the \(close.byClient ? "client" : "server") closed the WebSocket: \(close.code)\(reason)", about: url))
            }
        case .failure(let error as ClientError):
            throw CommandFailure.failed(redaction.policy.redact(text: "ws \(url) failed: \(error.underlyingError)", about: url))
        case .failure(let error):
            throw CommandFailure.failed(redaction.policy.redact(text: "ws \(url) failed: \(error)", about: url))
        }
    }

    /// Sends `lines` and prints what arrives until the connection ends; returns how it ended. After the last line
    /// the close waits for the server to go quiet, as `end` schedules it.
    static func run(_ socket: WebSocket, lines: AsyncStream<String>, end: WSInputEnd,
                    clock: ContinuousClock = ContinuousClock()) async throws -> WebSocketClose? {
        let start = clock.now
        let schedule = Mutex(end)
        let sender = Task {
            for await line in lines {
                do { try socket.send(line) } catch { return }
            }
            schedule.withLock { $0.inputEnded(at: clock.now - start) }
            while true {
                switch schedule.withLock({ $0.action(at: clock.now - start) }) {
                case .keepOpen, .close:
                    try? socket.close(code: 1000, reason: "")
                    return
                case .wait(let until):
                    do { try await clock.sleep(until: start + until) } catch { return }
                }
            }
        }
        defer { sender.cancel() }
        do {
            for try await message in socket.messages {
                schedule.withLock { $0.received(at: clock.now - start) }
                switch message {
                case .text(let text): try StandardStreams.output(Data((text + "\n").utf8))
                case .binary(let data):
                    try StandardStreams.output(Data("<binary \(data.count) bytes: \(data.base64EncodedString())>\n".utf8))
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            // A dropped connection: its close (1006) says so.
        }
        return socket.closeInfo
    }

    /// Standard input's lines, read on a thread of their own (a blocking read must not hold a task's thread).
    static func standardInputLines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        thread.start()
        return lines
    }

    /// The client's HTTP transport, never called by a WebSocket exchange.
    struct NoHTTP: ClientTransport {
        func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
            throw TransportError(.other, "loupe ws sends no HTTP request")
        }
    }
}
