import ArgumentParser
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeLink
import LoupeTrace

/// `loupe send METHOD URL`: one request through the Loupe client, recorded, printed like `curl -i`.
///
/// The body streams to standard output (or `--output FILE`) as it arrives, in constant memory at any size; the
/// recorder keeps its first bytes (its body cap) and its true size.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one request through the client and record it.",
        discussion: """
            Prints the status line, the response headers, a blank line and the body, which streams as it arrives \
            (to FILE instead with --output); a text/event-stream response prints each event as it arrives and is \
            recorded event by event. Exits 1 on HTTP status >= 400 or a transport error, 2 when standard \
            output will not take the body (a full disk, a closed pipe).
            """
    )

    @Argument(help: "The HTTP method, e.g. GET or POST.")
    var method: String

    @Argument(help: "The absolute http(s) URL.")
    var url: String

    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header, 'Name: value' (repeatable).",
            transform: HeaderArgument.parse)
    var headers: [HeaderArgument] = []

    @Option(help: "A request body; '@FILE' reads it from a file.")
    var data: String?

    // curl's --json: a body, where every other command's --json prints JSON (Documentation/Glossary.md).
    @Option(help: "A JSON request body, as curl's --json (sets Content-Type and Accept to application/json); '@FILE' reads a file. send prints the response as it came, never JSON of its own.")
    var json: String?

    @Option(help: "The trace store to record into.")
    var store: String?

    @Option(help: ArgumentHelp("Also stream the exchange to a listener (`loupe listen` and `loupe tui --listen` print the link; default: $LOUPE_LINK; on a shared machine prefer LOUPE_LINK, which `ps` does not show).",
                               valueName: "LINK"), transform: LinkOption.parse)
    var link: LinkAddress?

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "Write the body to FILE (replaced only once the whole body arrived; a device or FIFO is written through) instead of standard output.",
        valueName: "FILE"))
    var output: String?

    @Flag(help: "Let --output replace an existing file.")
    var force = false

    @Option(name: .customLong("max-response-bytes"), parsing: .unconditional, help: ArgumentHelp(
        "Fail when the body is longer than N bytes, 0 to \(SendCommand.maxResponseBytesLimit) (default: no limit).", valueName: "N"),
        transform: CountArgument.parser(in: 0...SendCommand.maxResponseBytesLimit, unit: "bytes"))
    var maxResponseBytes: CountArgument?

    /// 1 PiB: beyond any real body, and far inside `Int64`.
    static let maxResponseBytesLimit = 1 << 50

    @OptionGroup(title: "Redaction") var redaction: RedactionFlags

    @OptionGroup(title: "Resilience")
    var resilience: ResilienceFlags

    func validate() throws {
        try resilience.validate()
        if data != nil && json != nil { throw ValidationError("use either --data or --json, not both") }
        guard HTTPRequest.Method(method.uppercased()) != nil else { throw ValidationError("'\(method)' is not an HTTP method") }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme), parsed.host != nil else {
            throw ValidationError(redacted("'\(url)' is not an absolute http(s) URL"))
        }
        if let problem = PortArgument.problem(in: parsed) { throw ValidationError(redacted("'\(url)': \(problem)")) }
        // Refused at once rather than after the whole download; checked again when the command runs.
        if let output {
            do {
                _ = try OutputDestination.check(StoreAccess.expandTilde(output), flag: "--output", force: force, stores: [StoreAccess.path(store)])
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    func run() async throws {
        let request = try makeRequest()
        let body = try makeBody()
        // Decided before the store opens or anything is sent: a refused path is left exactly as it was.
        var destination: OutputDestination?
        if let output {
            destination = try OutputDestination.check(
                StoreAccess.expandTilde(output), flag: "--output", force: force, stores: [StoreAccess.path(self.store)])
        }
        let (store, storePath) = try StoreAccess.openForWriting(store)
        defer { StoreAccess.reportPrunes(store, path: storePath) }  // what keeping the store within its bounds removed
        let link = try LinkOption.start(link, appName: "loupe send")
        let recording = NetworkTraceInspector.Configuration(redaction: redaction.policy, forwarders: [link])
        let inspector = NetworkTraceInspector(store: store, configuration: recording)
        let transport = try resilience.makeTransport()
        let file: DownloadFile?, through: PassThroughFileSink?
        switch destination {
        case .replace(let path): (file, through) = (DownloadFile(destination: URL(fileURLWithPath: path)), nil)
        case .through(let path): (file, through) = (nil, PassThroughFileSink(path: path))
        case nil: (file, through) = (nil, nil)
        }
        defer { file?.discard() }
        let standardOutput = StandardOutputSink()
        // A text/event-stream response streams out as it comes, and is recorded event by event besides.
        let tap = EventStreamTap(base: file ?? through.map { $0 as any ResponseBodySink } ?? standardOutput, recorder: inspector)
        let sink: any ResponseBodySink = tap
        let client = Client(
            baseURL: request.url!, transport: transport, middlewares: resilience.makeMiddlewares(),
            observer: MultiplexClientObserver([tap, inspector, LiveAttemptPrinter(
                redacting: url, with: redaction.policy,
                silencedWhen: { standardOutput.writeFailure != nil || through?.writeFailure != nil })]))
        let retried = resilience.retriedStatuses
        let streaming = ResponseStreaming(
            // A status the retry policy may retry is held back (bounded) until it is final: output cannot be unsent.
            streams: { !retried.contains($0.code) }, keptPrefix: recording.bodyCap,
            maxBodyBytes: maxResponseBytes.map { Int64($0.value) })
        let result: Result<ClientResponse<Int64>, any Error>
        do {
            let options = RequestOptions(operation: "send", timeout: resilience.attemptTimeout)
            result = .success(try await client.execute(request, body: body, options: options, streamingBodyTo: sink, streaming: streaming))
        } catch {
            result = .failure(error)
        }
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: storePath)
        LinkOption.report(link)
        try? await transport.shutdown()
        // Standard output refused the body (a full disk, a closed pipe): the command's own failure, as for every
        // command that cannot write its output; the store says the exchange was cut short there.
        if case .failure = result, let failure = standardOutput.writeFailure ?? through?.writeFailure { throw CommandFailure.badInput(failure) }
        switch result {
        case .success(let response):
            if file != nil || through != nil {
                do {
                    _ = try file?.install(body: Data())
                    try through?.finishIfUnopened()
                } catch {
                    throw CommandFailure.badInput(redacted("\(method.uppercased()) \(url): \(error)"))
                }
                let head = StandardOutputSink.headText(response.head, httpVersion: response.httpVersion)
                // The body went to standard output itself (`-o /dev/stdout`): the head must not follow it there.
                if case .through(let path) = destination, OutputDestination.isStandardOutput(path) {
                    StandardStreams.error(head)
                } else {
                    try StandardStreams.output(Data(head.utf8))
                }
            }
            if response.status.code >= 400 { throw ExitCode(1) }
        case .failure(let error as ClientError):
            throw CommandFailure.failed(redacted("\(method.uppercased()) \(url) failed: \(error.underlyingError)"))
        case .failure(let error):
            throw CommandFailure.failed(redacted("\(method.uppercased()) \(url) failed: \(error)"))
        }
    }

    /// A line that quotes the URL, with the URL's secrets (password, tokens) and any other redacted as the store
    /// has them: everything printed is redacted like everything stored.
    private func redacted(_ line: String) -> String {
        redaction.policy.redact(text: line, about: url)
    }

    func makeRequest() throws -> HTTPRequest {
        var fields = HeaderArgument.fields(headers)
        // `--data` sends a form unless told otherwise, as `curl --data` does (and the recorder redacts it as one).
        if data != nil, fields[.contentType] == nil { fields[.contentType] = "application/x-www-form-urlencoded" }
        if json != nil {
            if fields[.contentType] == nil { fields[.contentType] = "application/json" }
            if fields[.accept] == nil { fields[.accept] = "application/json" }
        }
        if fields[.userAgent] == nil { fields[.userAgent] = "loupe" }
        return HTTPRequest(method: HTTPRequest.Method(method.uppercased())!, url: URL(string: url)!, headerFields: fields)
    }

    func makeBody() throws -> RequestBody? {
        guard let text = data ?? json else { return nil }
        guard text.hasPrefix("@") else { return .string(text) }
        let path = StoreAccess.expandTilde(String(text.dropFirst()))
        return .data(try InputFile.contents(path, role: "body file"))
    }
}
