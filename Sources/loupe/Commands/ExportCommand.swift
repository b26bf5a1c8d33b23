import ArgumentParser
import Foundation
import Loupe
import LoupeTrace
import LoupeFormats
import LoupeOTLP
import LoupeProtobuf

/// `loupe export [STORE] --har FILE [--filter EXPR]`: the matching exchanges as a HAR 1.2 file, oldest first; or
/// `--otlp URL [--header 'Name: value']…`: as OpenTelemetry spans to a collector (`LoupeOTLP`).
///
/// The file is written beside its final place and renamed over it at the end, so a reader never sees half a file
/// and a failed export leaves any previous file as it was. Exchanges are read in batches (a few queries per
/// batch, none per exchange) and written entry by entry, so memory does not grow with the store.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export recorded exchanges as a HAR 1.2 file or to an OpenTelemetry collector.",
        discussion: """
            Loupe's own data (attempts, breaker states, retries, events, replay links) travels in `_loupe` fields that \
            other tools ignore and `loupe import` reads back. Values redacted when recording stay redacted.

            With --otlp, each exchange becomes a span with a child span per attempt, sent as OTLP/HTTP protobuf \
            to URL (the collector's traces endpoint, e.g. http://127.0.0.1:4318/v1/traces). A collector that is \
            down or answers 429/502/503/504 is retried with backoff, honouring Retry-After. Exits 1 saying how \
            many spans were not delivered, if any.

            \(FilterOption.help)
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: ArgumentHelp("Where to write the HAR file ('-' for standard output).", valueName: "FILE"))
    var har: String?

    @Option(help: ArgumentHelp("Send spans to this OTLP/HTTP traces endpoint instead.", valueName: "URL"))
    var otlp: String?

    @Option(name: [.customShort("H"), .customLong("header")],
            help: "With --otlp: a header sent to the collector, 'Name: value' (repeatable).",
            transform: HeaderArgument.parse)
    var headers: [HeaderArgument] = []

    @Option(help: ArgumentHelp("With --otlp: exchanges per request, 1 to 10000 (default 200).", valueName: "N"),
            transform: CountArgument.parser(in: 1...10_000))
    var otlpBatch: CountArgument = 200

    @Option(help: "Only exchanges matching EXPR, e.g. '~c 5xx | ~dur >1s'.")
    var filter: String?

    @Flag(help: "Let --har replace an existing file.")
    var force = false

    @OptionGroup var descriptorSet: DescriptorSetOption

    func run() async throws {
        MallocTuning.keepFreedMemory()  // bodies of up to a megabyte, read and freed one by one
        let filter = try FilterOption.parse(self.filter)
        let messageTypes = try descriptorSet.load()
        if let otlp {
            guard har == nil else { throw CommandFailure.badInput("--har and --otlp cannot be used together") }
            guard !force else { throw CommandFailure.badInput("--force applies to --har, not --otlp") }
            return try await exportOTLP(to: try OTLPOption.endpoint(otlp, headers: headers), filter: filter)
        }
        guard headers.isEmpty else { throw CommandFailure.badInput("--header applies to --otlp") }
        guard let har else { throw CommandFailure.badInput("missing --har FILE or --otlp URL") }
        // Decided before the store opens: a refused path is left exactly as it was.
        let destination = har == "-" ? nil : try OutputDestination.check(
            StoreAccess.expandTilde(har), flag: "--har", force: force, stores: [StoreAccess.path(store)])
        let (store, _) = try StoreAccess.openForReading(store)
        guard let destination else {
            let count = try export(from: store, filter: filter, messageTypes: messageTypes) { try StandardStreams.output($0) }
            StandardStreams.error("loupe: exported \(Quantity.count(count, "exchange"))\n")
            return
        }
        let count: Int
        let path: String
        switch destination {
        case .replace(let target):
            path = target
            count = try writeAtomically(to: target) { handle in
                try export(from: store, filter: filter, messageTypes: messageTypes) { try handle.write(contentsOf: $0) }
            }
        case .through(let target):
            count = try writeThrough(to: target) { handle in
                try export(from: store, filter: filter, messageTypes: messageTypes) { try handle.write(contentsOf: $0) }
            }
            // On standard error, as for `-`: `/dev/stdout` is a path too, and the line must not follow the HAR there.
            StandardStreams.error(TerminalText.line("loupe: exported \(Quantity.count(count, "exchange")) to \(target)") + "\n")
            return
        }
        print(TerminalText.line("Exported \(Quantity.count(count, "exchange")) to \(path)"))
    }

    /// Sends the matching exchanges' spans to `endpoint`; prints what was sent, and fails (exit 1) when any span
    /// was not delivered.
    private func exportOTLP(to endpoint: OTLPEndpoint, filter: TraceFilter?) async throws {
        let (store, _) = try StoreAccess.openForReading(store)
        let report: OTLPStoreExport.Report
        do {
            report = try await OTLPStoreExport.run(
                from: store, to: endpoint, matching: filter, exchangesPerRequest: otlpBatch.value)
        } catch let error as TraceStoreError {
            throw StoreAccess.readFailure(error)
        } catch let error as TraceFilterError {
            throw StoreAccess.readFailure(error)
        }
        print(TerminalText.line(OTLPStoreExport.summary(report.counts, endpoint: endpoint)))
        if report.counts.undeliveredSpans > 0 {
            throw CommandFailure.failed(OTLPStoreExport.failureLine(report))
        }
    }

    /// Streams the matching exchanges into `sink`; returns how many.
    private func export(from store: SQLiteTraceStore, filter: TraceFilter?, messageTypes: ProtobufDescriptorSet?,
                        sink: @escaping (Data) throws -> Void) throws -> Int {
        var writer = HARWriter(sink: sink)
        if let messageTypes {
            // Each gRPC message read by its method's types, in protobuf's JSON mapping, beside its base64.
            writer.messageJSON = { exchange, message in
                guard exchange.stream?.kind == .grpc, !message.isTruncated else { return nil }
                return ProtobufJSON.decode(message.payload, method: exchange.operation, request: message.direction == .sent,
                                           in: messageTypes)?.text()
            }
        }
        do {
            try writer.begin()
            try store.export(matching: filter, into: &writer)
            try writer.finish()
        } catch let error as TraceStoreError {
            throw StoreAccess.readFailure(error)
        } catch let error as TraceFilterError {
            throw StoreAccess.readFailure(error)
        }
        return writer.count
    }

    /// Writes through `body` into a temporary file beside `path`, then renames it over `path`.
    private func writeAtomically<T>(to path: String, _ body: (FileHandle) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // Owner-only, like the store: the file holds recorded traffic.
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure.badInput("cannot write \(path): cannot create a file in \(folder.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            let result: T
            do {
                defer { try? handle.close() }
                result = try body(handle)
                try handle.synchronize()
            }
            if rename(temporary.path, path) != 0 {
                throw CommandFailure.badInput("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return result
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let failure = error as? CommandFailure { throw failure }
            throw CommandFailure.badInput("cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// Writes through `body` into `path` where it is (a device, a FIFO, `/dev/stdout`): never renamed over.
    private func writeThrough<T>(to path: String, _ body: (FileHandle) throws -> T) throws -> T {
        let descriptor = OutputDestination.openThrough(path)
        guard descriptor >= 0 else {
            throw CommandFailure.badInput("cannot write \(TerminalText.line(path)): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        do {
            return try body(handle)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure.badInput("cannot write \(TerminalText.line(path)): \(StandardStreams.reason(error))")
        }
    }
}
