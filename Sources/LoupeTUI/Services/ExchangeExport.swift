import Foundation
import Loupe
import LoupeTrace
import LoupeFormats

/// Writes recorded exchanges to a file as curl, HAR or raw HTTP, for the TUI's `x`.
///
/// Exchanges are streamed: each is turned into bytes and written before the next is asked for, so exporting a
/// filter over a large store holds one exchange at a time. What the store holds is already redacted; nothing
/// here puts anything back.
package enum ExchangeExport {
    /// The bytes of `exchanges` in `format` (for tests and small selections).
    package static func data(for exchanges: some Sequence<TraceExchange>, as format: ExportFormat) throws -> Data {
        var output = Data()
        _ = try stream(as: format, into: { output.append($0) }) { emit in
            for exchange in exchanges { try emit(exchange) }
        }
        return output
    }

    /// Writes `exchanges` to the file `path` names; see ``write(as:to:environment:currentDirectory:produce:)``.
    package static func write(
        _ exchanges: some Sequence<TraceExchange>, as format: ExportFormat, to path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ExportError) -> String {
        try write(as: format, to: path, environment: environment, currentDirectory: currentDirectory) { emit in
            for exchange in exchanges { try emit(exchange) }
        }
    }

    /// Writes the exchanges `produce` emits to the file `path` names, and says what it did:
    /// `wrote 3 exchanges as HAR to /tmp/x.har (12.4 KB)`.
    ///
    /// `path` may start with `~/`; a relative path is taken from `currentDirectory`. An existing file is never
    /// replaced. The file is created 0600 and appears whole or not at all.
    ///
    /// - Parameter produce: calls its argument once per exchange, in order; it may throw (a store read failing),
    ///   which abandons the export.
    /// - Throws: ``ExportError``, whose description is one line.
    package static func write(
        as format: ExportFormat, to path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        produce: (_ emit: (TraceExchange) throws -> Void) throws -> Void
    ) throws(ExportError) -> String {
        let destination = try resolvedPath(path, environment: environment, currentDirectory: currentDirectory)
        do {
            let (count, size) = try AtomicFile.write(to: destination, replacing: false) { output in
                let count = try stream(as: format, into: { try output.write($0) }, produce: produce)
                guard count > 0 else { throw ExportError("nothing to export") }
                return (count, output.count)
            }
            let noun = count == 1 ? "exchange" : "exchanges"
            return TerminalText.line(
                "wrote \(count) \(noun) as \(format.title) to \(destination) (\(Quantity.bytes(size)))")
        } catch let error as ExportError {
            throw error
        } catch AtomicFile.Failure.exists(let path) {
            throw ExportError("\(path) already exists; export never replaces a file, so give a new name")
        } catch let error as AtomicFile.Failure {
            throw ExportError(error.description + Self.folderHint(destination))
        } catch {
            throw ExportError("cannot export: \(error)")
        }
    }

    /// The absolute path `typed` names: surrounding spaces dropped, `~` expanded, relative to `currentDirectory`.
    package static func resolvedPath(_ typed: String, environment: [String: String], currentDirectory: String)
        throws(ExportError) -> String {
        let path = typed.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { throw ExportError("no file name given") }
        var absolute: String
        if path == "~" || path.hasPrefix("~/") {
            absolute = XDGDirectories.home(environment: environment) + path.dropFirst()
        } else if path.hasPrefix("/") {
            absolute = path
        } else {
            absolute = XDGDirectories.join(currentDirectory, path)
        }
        absolute = URL(fileURLWithPath: absolute).standardized.path
        return absolute
    }

    /// Streams the exchanges `produce` emits into `sink` in `format`; returns how many there were.
    private static func stream(
        as format: ExportFormat, into sink: @escaping (Data) throws -> Void,
        produce: ((TraceExchange) throws -> Void) throws -> Void
    ) throws -> Int {
        var count = 0
        switch format {
        case .har:
            var writer = HARWriter(sink: sink)
            try writer.begin()
            try produce { exchange in
                try writer.append(exchange)
                count += 1
            }
            try writer.finish()
        case .curl, .raw:
            try produce { exchange in
                if count > 0 { try sink(format == .curl ? Data("\n".utf8) : RawHTTPExporter.separator) }
                try sink(format == .curl ? Data((CurlExporter.command(for: exchange) + "\n").utf8)
                                         : RawHTTPExporter.data(for: exchange))
                count += 1
            }
        }
        return count
    }

    /// ` (no folder …)` when the destination's folder is missing, the usual reason a write fails.
    private static func folderHint(_ destination: String) -> String {
        let folder = (destination as NSString).deletingLastPathComponent
        return FileManager.default.fileExists(atPath: folder) ? "" : " (no folder \(folder))"
    }
}

/// Why an export wrote nothing, as one line.
package struct ExportError: Error, Equatable, CustomStringConvertible {
    /// The line.
    package var description: String

    package init(_ description: String) {
        self.description = TerminalText.line(description)
    }
}
