import ArgumentParser
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import LoupeAsyncHTTPClient
import LoupeTrace

/// `loupe send METHOD URL`: one request through the Loupe client, recorded, printed like `curl -i`.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one request through the client and record it.",
        discussion: "Prints the status line, the response headers, a blank line and the body. Exits 1 on HTTP status >= 400 or a transport error."
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
    }

    func run() async throws {
        let request = try makeRequest()
        let body = try makeBody()
        let (store, storePath) = try StoreAccess.openForWriting(store)
        defer { StoreAccess.reportPrunes(store, path: storePath) }  // what keeping the store within its bounds removed
        let inspector = NetworkTraceInspector(store: store, configuration: .init(redaction: redaction.policy))
        let transport = try resilience.makeTransport()
        let client = Client(
            baseURL: request.url!, transport: transport, middlewares: resilience.makeMiddlewares(),
            observer: MultiplexClientObserver([inspector, LiveAttemptPrinter()]))
        let result: Result<ClientResponse<Data>, any Error>
        do {
            let options = RequestOptions(operation: "send", timeout: resilience.attemptTimeout)
            result = .success(try await client.execute(request, body: body, options: options))
        } catch {
            result = .failure(error)
        }
        await inspector.shutdown()
        RecorderReport.warnIfLost(inspector, path: storePath)
        try? await transport.shutdown()
        switch result {
        case .success(let response):
            printResponse(response)
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

    /// The head always with control characters made visible; the body as received, unless stdout is a terminal
    /// (then as `TerminalText.block`), so `send … > file` stays byte-exact and a hostile body cannot drive the screen.
    func printResponse(_ response: ClientResponse<Data>) {
        var head = "\(response.httpVersion ?? "HTTP/1.1") \(response.status.code) \(TerminalText.line(response.status.reasonPhrase))\n"
        for field in response.headerFields { head += TerminalText.line("\(field.name.rawName): \(field.value)") + "\n" }
        FileHandle.standardOutput.write(Data((head + "\n").utf8))
        if isatty(STDOUT_FILENO) == 1 {
            FileHandle.standardOutput.write(Data(TerminalText.block(String(decoding: response.body, as: UTF8.self)).utf8))
        } else {
            FileHandle.standardOutput.write(response.body)
        }
        if let last = response.body.last, last != UInt8(ascii: "\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
