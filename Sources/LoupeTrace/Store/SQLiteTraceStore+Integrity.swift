import Foundation
import GRDB

/// Finding damaged pages: every page of a small store on each open, any store on request.
extension SQLiteTraceStore {
    /// The largest file checked page by page on every open (8 MiB): small enough that the check stays a small
    /// part of any command.
    static let fullCheckLimit = 8 << 20

    /// Checks every page of the store (`PRAGMA quick_check`: about 2.6 ms per MB, seconds on a large store) and
    /// throws ``TraceStoreError/Code/damaged`` naming the first problems found. Opening checks only stores up to
    /// 8 MiB this way; call this (for example behind a `--check` option) to vouch for a larger one.
    public func checkIntegrity() throws {
        try guarded { try pool.read { db in try Self.checkEveryPage(db, path: path) } }
    }

    /// Throws ``TraceStoreError/Code/damaged`` unless `PRAGMA quick_check` finds every page sound.
    static func checkEveryPage(_ db: Database, path: String) throws {
        let report = try String.fetchAll(db, sql: "PRAGMA quick_check(3)")
        guard report != ["ok"] else { return }
        // SQLite heads its report with "*** in database main ***"; the problems follow, one per line.
        let problems = report.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }.prefix(2)
        throw TraceStoreError.damaged(path, "SQLite's check: " + problems.joined(separator: "; "))
    }
}
