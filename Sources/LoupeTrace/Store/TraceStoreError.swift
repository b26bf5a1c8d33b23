import Foundation

/// Why a trace store could not be opened or used, in words a user can act on.
///
/// A struct around an open set of ``Code``s, so cases can be added without breaking callers:
/// `catch let error as TraceStoreError where error.code == .newerSchema`.
public struct TraceStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

        /// No store exists at the path (and a read-only open does not create one).
        public static let notFound = Code(name: "notFound")
        /// The file exists but is not an SQLite database.
        public static let notADatabase = Code(name: "notADatabase")
        /// The file is an SQLite database, but not one Loupe wrote.
        public static let notALoupeStore = Code(name: "notALoupeStore")
        /// The store was written by a newer Loupe whose schema this version does not know.
        public static let newerSchema = Code(name: "newerSchema")
        /// The file or its folder could not be created or opened.
        public static let cannotOpen = Code(name: "cannotOpen")
        /// SQLite reported an error while reading or writing.
        public static let database = Code(name: "database")
        /// The path names a folder, a named pipe, a socket or a device: nothing Loupe opens as a store.
        public static let notAFile = Code(name: "notAFile")
        /// A writer was asked to record into a store whose file is read-only (viewers can still read it).
        public static let readOnly = Code(name: "readOnly")
        /// The file is a Loupe store whose pages are damaged (truncated, overwritten or corrupted).
        public static let damaged = Code(name: "damaged")
        /// Bounds that mean nothing: a negative count or size, an age that is not a positive number.
        public static let invalidBounds = Code(name: "invalidBounds")
    }

    /// The kind of failure.
    public var code: Code
    /// The store's path.
    public var path: String
    /// One sentence saying what went wrong and, when possible, what to do.
    public var message: String

    public init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    package static func notFound(_ path: String) -> Self {
        Self(code: .notFound, path: path, message: "no trace store here (record something first, or pass --store)")
    }

    package static func notADatabase(_ path: String) -> Self {
        Self(code: .notADatabase, path: path, message: "not a Loupe trace store (the file is not an SQLite database)")
    }

    package static func notALoupeStore(_ path: String) -> Self {
        Self(code: .notALoupeStore, path: path, message: "an SQLite database, but not a Loupe trace store")
    }

    package static func newerSchema(_ path: String, found: Int, supported: Int) -> Self {
        Self(code: .newerSchema, path: path, message:
            "written by a newer Loupe (schema version \(found); this version reads up to \(supported)); upgrade loupe")
    }

    package static func cannotOpen(_ path: String, _ reason: String) -> Self {
        Self(code: .cannotOpen, path: path, message: "cannot open the trace store: \(reason)")
    }

    package static func notAFile(_ path: String, _ kind: String) -> Self {
        Self(code: .notAFile, path: path, message: "\(kind), not a trace store file; give the path of a store file")
    }

    package static func emptyFile(_ path: String) -> Self {
        Self(code: .notALoupeStore, path: path, message:
            "an empty file, not a Loupe trace store (Loupe never leaves a store empty); remove it to start a new store here")
    }

    package static func readOnly(_ path: String, _ reason: String) -> Self {
        Self(code: .readOnly, path: path, message:
            "the store is read-only (\(reason)); list, show, stats, export and tui can still read it")
    }

    package static func damaged(_ path: String, _ detail: String) -> Self {
        Self(code: .damaged, path: path, message:
            "the trace store is damaged (\(detail)); copy what can be saved with `sqlite3 STORE .recover | sqlite3 NEW.sqlite`")
    }

    package static func invalidBounds(_ detail: String) -> Self {
        Self(code: .invalidBounds, path: "", message: detail)
    }

    package static func database(_ path: String, _ detail: String) -> Self {
        Self(code: .database, path: path, message: "database error: \(detail)")
    }
}
