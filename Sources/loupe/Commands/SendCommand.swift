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
            (to FILE instead with --output). Exits 1 on HTTP status >= 400 or a transport error, 2 when standard \
            output will not take the body (a full disk, a closed pipe).
            """
    )

    @Argument(help: "The HTTP method, e.g. GET or POST.")
    var method: String

    @Argument(help: "The absolute http(s) URL.")
    var url: String

    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header, 'Name: value' (repeatable).")
    var headers: [String] = []

    @Option(help: "A request body; '@FILE' reads it from a file.")
    var data: String?

    @Option(help: "A JSON request body (sets Content-Type and Accept to application/json); '@FILE' reads a file.")
    var json: String?

    @Option(help: "The trace store to record into.")
    var store: String?

    @Option(help: ArgumentHelp("Also stream the exchange to a listener (`loupe listen` prints the link; default: $LOUPE_LINK).",
                               valueName: "LINK"), transform: LinkOption.parse)
    var link: LinkAddress?

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "Write the body to FILE (replaced only once the whole body arrived) instead of standard output.", valueName: "FILE"))
    var output: String?

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
            throw ValidationError("'\(url)' is not an absolute http(s) URL")
        }
        if let problem = PortArgument.problem(in: parsed) { throw ValidationError("'\(url)': \(problem)") }
        if let output { try Self.checkOutput(StoreAccess.expandTilde(output)) }
    }

    /// Refuses at once an --output the body could never be moved to, rather than after the whole download.
    static func checkOutput(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ValidationError("--output \(path) is a directory")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ValidationError("--output \(path): no such directory \(folder)")
        }
        guard access(folder, W_OK) == 0 else { throw ValidationError("--output \(path): cannot write in \(folder)") }
    }

    func run() async throws {
        let request = try makeRequest()
        let body = try makeBody()
        let (store, storePath) = try StoreAccess.openForWriting(store)
        defer { StoreAccess.reportPrunes(store, path: storePath) }  // what keeping the store within its bounds removed
        let link = try LinkOption.start(link, appName: "loupe send")
        let recording = NetworkTraceInspector.Configuration(redaction: redaction.policy, link: link)
        let inspector = NetworkTraceInspector(store: store, configuration: recording)
        let transport = try resilience.makeTransport()
        let client = Client(
            baseURL: request.url!, transport: transport, middlewares: resilience.makeMiddlewares(),
            observer: MultiplexClientObserver([inspector, LiveAttemptPrinter()]))
        let file = output.map { DownloadFile(destination: URL(fileURLWithPath: StoreAccess.expandTilde($0))) }
        defer { file?.discard() }
        let standardOutput = StandardOutputSink()
        let sink: any ResponseBodySink = file ?? standardOutput
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
        if case .failure = result, let failure = standardOutput.writeFailure { throw CommandFailure.badInput(failure) }
        switch result {
        case .success(let response):
            if let file {
                do {
                    _ = try file.install(body: Data())
                } catch {
                    throw CommandFailure.failed("\(method.uppercased()) \(url): \(error)")
                }
                try StandardStreams.output(Data(StandardOutputSink.headText(response.head, httpVersion: response.httpVersion).utf8))
            }
            if response.status.code >= 400 { throw ExitCode(1) }
        case .failure(let error as ClientError):
            throw CommandFailure.failed("\(method.uppercased()) \(url) failed: \(error.underlyingError)")
        case .failure(let error):
            throw CommandFailure.failed("\(method.uppercased()) \(url) failed: \(error)")
        }
    }

    func makeRequest() throws -> HTTPRequest {
        var fields = HTTPFields()
        for header in headers {
            guard let colon = header.firstIndex(of: ":"),
                  let name = HTTPField.Name(String(header[..<colon]).trimmingCharacters(in: .whitespaces)) else {
                throw CommandFailure.badInput("header '\(header)' is not 'Name: value'")
            }
            fields.append(HTTPField(name: name, value: String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
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
