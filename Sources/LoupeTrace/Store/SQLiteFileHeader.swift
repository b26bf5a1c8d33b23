import Foundation

/// The first 100 bytes of an SQLite database file, read without SQLite, so a file can be judged before any
/// connection (which might create `-wal`/`-shm` files beside it) is opened.
///
/// Layout: <https://www.sqlite.org/fileformat.html#the_database_header>. Numbers are big-endian.
struct SQLiteFileHeader: Equatable {
    /// "SQLite format 3" and a NUL: the first 16 bytes of every SQLite 3 database.
    static let magic = Array("SQLite format 3\u{0}".utf8)
    static let size = 100

    /// Bytes per page (the stored 1 means 65,536).
    var pageSize: Int
    /// The database size in pages, when ``sizeIsValid``.
    var pageCount: Int
    /// Whether ``pageCount`` may be trusted (SQLite's own rule: the change counter matches "version valid for").
    var sizeIsValid: Bool

    /// Parses `bytes`; `nil` unless they start with the SQLite magic and hold a whole, sane header.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.size, Array(bytes[0..<16]) == Self.magic else { return nil }
        func number(_ offset: Int, _ width: Int) -> Int {
            bytes[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
        }
        let storedPageSize = number(16, 2)
        pageSize = storedPageSize == 1 ? 65_536 : storedPageSize
        // A page size is a power of two from 512 to 65,536; anything else is a damaged header.
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        pageCount = number(28, 4)
        sizeIsValid = pageCount > 0 && number(24, 4) == number(92, 4)
    }

    /// Whether the file starts with the SQLite magic at all (a damaged header still does).
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && Array(bytes[0..<magic.count]) == magic
    }
}
