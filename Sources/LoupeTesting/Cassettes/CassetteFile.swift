import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats

/// Reads and writes a cassette's interactions: a HAR file when the path ends in `.har`, else a Loupe store (SQLite).
///
/// A save replaces the whole file at once (written beside it, then renamed over it), so a test that crashes while
/// recording leaves the previous cassette or the new one, never half of either.
enum CassetteFile {
    /// Whether `path` names a HAR cassette.
    static func isHAR(_ path: String) -> Bool {
        URL(fileURLWithPath: path).pathExtension.lowercased() == "har"
    }

    /// Whether something is at `path`.
    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// The interactions stored at `path`, in recorded order.
    static func load(_ path: String) throws(CassetteError) -> [TraceExchange] {
        do {
            if isHAR(path) {
                // Read as stored: the cassette applies its own redaction to what it loads.
                return try HARImporter(redaction: .none, bodyCap: .max).exchanges(contentsOf: URL(fileURLWithPath: path))
            }
            let store = try SQLiteTraceStore(path: path, readOnly: true)
            defer { try? store.close() }
            return try store.summaries(after: .min, limit: .max).compactMap { try store.exchange(id: $0.id) }
        } catch {
            throw CassetteError(.unreadable, path: path, message: "cannot read cassette \(path): \(error)")
        }
    }

    /// Replaces the file at `path` with `interactions` (creating its folder when needed).
    static func save(_ interactions: [TraceExchange], to path: String) throws(CassetteError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if isHAR(path) {
                try HARExporter().data(for: interactions).write(to: URL(fileURLWithPath: temporary))
            } else {
                let store = try SQLiteTraceStore(path: temporary, bounds: nil)
                try store.write(interactions)
                try store.close()
                removeCompanions(of: temporary)
                // A journal left by the file being replaced would be applied to the new one.
                removeCompanions(of: path)
            }
            guard rename(temporary, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            removeCompanions(of: temporary)
            throw CassetteError(.cannotWrite, path: path, message: "cannot write cassette \(path): \(error)")
        }
    }

    private static func removeCompanions(of path: String) {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
