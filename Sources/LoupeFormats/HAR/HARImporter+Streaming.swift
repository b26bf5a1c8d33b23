import Foundation
import LoupeQuery
import LoupeTrace

/// Reading a HAR entry by entry: each entry's bytes are decoded (`JSONDecoder`, as the whole document was),
/// converted, redacted and capped, then handed on and released, so memory holds one entry whatever the file's size.
extension HARImporter {
    /// Checks the file's JSON from its first byte to its last and the shape of its log (version, entries), without
    /// decoding the entries; returns how many entries it has. What passes may still hold an entry that is refused
    /// when read (``forEachExchange(contentsOf:_:)``); what fails here fails there the same way.
    @discardableResult
    public func check(contentsOf url: URL) throws(HARImportError) -> Int {
        try Self.onlyImportErrors {
            try Self.withFile(url) { handle, head in
                guard !Self.needsWholeDocument(head) else {
                    return try HARImporter.document(from: Self.readAll(handle)).log.entries.count
                }
                var reader = HARStreamReader(.file(handle))
                return try reader.read(nil)
            }
        }
    }

    /// Calls `body` with each exchange of the HAR file at `url`, in file order, as the file is read; returns how
    /// many. An entry that is refused stops the calls; its ``HARImportError`` is thrown once the rest of the file is
    /// checked (a syntax error later in the file is reported instead, as whole-document decoding did). Errors
    /// `body` throws are rethrown at once.
    @discardableResult
    public func forEachExchange(contentsOf url: URL, _ body: (TraceExchange) throws -> Void) throws -> Int {
        try Self.withFile(url) { handle, head in
            guard !Self.needsWholeDocument(head) else {
                let exchanges = try wholeDocumentExchanges(from: Self.readAll(handle))
                try exchanges.forEach(body)
                return exchanges.count
            }
            return try forEachExchange(in: .file(handle), body)
        }
    }

    /// As ``forEachExchange(contentsOf:_:)``, with where each entry's bytes are in the file (for
    /// ``exchange(entryBytes:index:)`` to read it again); `nil`, with no calls, for a file in UTF-16 or UTF-32, whose
    /// entries are not byte ranges of the file.
    package func forEachExchangeWithRange(contentsOf url: URL, _ body: (TraceExchange, Range<Int>) throws -> Void) throws -> Int? {
        try Self.withFile(url) { handle, head in
            guard !Self.needsWholeDocument(head) else { return nil }
            return try forEachExchange(in: .file(handle), withRanges: body)
        }
    }

    /// The exchange of one entry's bytes, as ``forEachExchange(contentsOf:_:)`` made it from the same bytes
    /// (redacted and capped); `index` names the entry in errors.
    package func exchange(entryBytes bytes: Data, index: Int) throws(HARImportError) -> TraceExchange {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try exchange(from: entry(bytes, index: index, decoder: decoder), index: index)
    }

    /// ``forEachExchange(contentsOf:_:)`` over bytes in memory, read through a window of `chunkSize` bytes.
    @discardableResult
    func forEachExchange(in data: Data, chunkSize: Int = 1 << 20, _ body: (TraceExchange) throws -> Void) throws -> Int {
        guard !Self.needsWholeDocument(data.prefix(4)) else {
            let exchanges = try wholeDocumentExchanges(from: data)
            try exchanges.forEach(body)
            return exchanges.count
        }
        return try forEachExchange(in: .bytes(data), chunkSize: chunkSize, body)
    }

    /// Reads the file and writes every exchange into `store` in one transaction: all of them, or none when the
    /// file or an entry is refused or a write fails. The file's JSON and log are checked (``check(contentsOf:)``)
    /// before the store is touched; an entry refused later leaves the store's exchanges as they were.
    @discardableResult
    public func importFile(at url: URL, into store: SQLiteTraceStore) throws -> Int {
        try check(contentsOf: url)
        return try write(contentsOf: url, into: store).written
    }

    /// Writes every exchange of the HAR file at `url`, checked already, into `store` in one transaction: all of them,
    /// or none when an entry is refused or a write fails. The file is parsed on a thread of its own, a batch ahead of
    /// the inserts (``BatchReadAhead``); its errors are thrown here as they were. `inserted` sees each exchange once
    /// it is handed to the store, on the inserting thread (`loupe serve` keeps the requests it matches that way).
    package func write(contentsOf url: URL, into store: SQLiteTraceStore,
                       inserted: (TraceExchange) throws -> Void = { _ in }) throws -> WriteCount {
        let ahead = BatchReadAhead<[TraceExchange]>.start { [self] put in
            var batch: [TraceExchange] = []
            var bytes = 0
            try forEachExchange(contentsOf: url) { exchange in
                batch.append(exchange)
                bytes += (exchange.requestBody?.data.count ?? 0) + (exchange.responseBody?.data.count ?? 0)
                guard batch.count >= Self.batchCount || bytes >= Self.batchBytes else { return }
                try put(batch)
                batch.removeAll()
                bytes = 0
            }
            if !batch.isEmpty { try put(batch) }
        }
        defer { ahead.stop() }  // also when the store refuses the write before taking a batch
        return try store.writeAll { sink in
            try ahead.forEach { batch in
                for exchange in batch {
                    try sink(exchange)
                    try inserted(exchange)
                }
            }
        }
    }

    /// A batch handed from the parsing thread to the inserting one ends at this many exchanges or, for large
    /// bodies, this many body bytes: three batches can be alive at once.
    static let batchCount = 256
    static let batchBytes = 2 << 20

    private func forEachExchange(in source: JSONStream.Source, chunkSize: Int = 1 << 20,
                                 _ body: (TraceExchange) throws -> Void) throws -> Int {
        try forEachExchange(in: source, chunkSize: chunkSize, withRanges: { exchange, _ in try body(exchange) })
    }

    private func forEachExchange(in source: JSONStream.Source, chunkSize: Int = 1 << 20,
                                 withRanges body: (TraceExchange, Range<Int>) throws -> Void) throws -> Int {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        var reader = HARStreamReader(source, chunkSize: chunkSize)
        // Whole-document decoding decodes every entry before converting any: an entry refused when converted is
        // reported only if every later entry decodes, so later entries are still decoded (not converted, not sent).
        var refused: HARImportError?
        let count = try withoutActuallyEscaping(body) { body in
            try reader.read(withOffsets: { bytes, index, offset in
                let entry = try self.entry(bytes, index: index, decoder: decoder)
                guard refused == nil else { return }
                let exchange: TraceExchange
                do throws(HARImportError) {
                    exchange = try self.exchange(from: entry, index: index)
                } catch {
                    refused = error
                    return
                }
                try body(exchange, offset..<(offset + bytes.count))
            })
        }
        if let refused { throw refused }
        return count
    }

    /// One entry's bytes decoded (by the fast reader when it can, else `JSONDecoder`), not yet converted.
    private func entry(_ bytes: Data, index: Int, decoder: JSONDecoder) throws(HARImportError) -> HAREntry {
        if let entry = HARFastDecoding.entry(bytes) { return entry }
        do {
            return try decoder.decode(HAREntry.self, from: bytes)
        } catch let error as DecodingError {
            throw HARDecodingFailure.describe(error, inEntry: index)
        } catch {
            throw HARImportError(code: .invalidEntry, message: "log.entries[\(index)]: \(Self.reason(error))")
        }
    }

    // MARK: Files

    /// Opens the file, reads its first bytes (to tell its encoding) and rewinds it for `body`.
    private static func withFile<T>(_ url: URL, _ body: (FileHandle, Data) throws -> T) throws -> T {
        let handle: FileHandle
        let head: Data
        do {
            handle = try FileHandle(forReadingFrom: url)
            head = try handle.read(upToCount: 4) ?? Data()
            try handle.seek(toOffset: 0)
        } catch {
            throw HARImportError(code: .unreadable, message: "cannot read the file: \(reason(error))")
        }
        defer { try? handle.close() }
        return try body(handle, head)
    }

    private static func readAll(_ handle: FileHandle) throws(HARImportError) -> Data {
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw HARImportError(code: .unreadable, message: "cannot read the file: \(reason(error))")
        }
    }

    /// Whether the text may be UTF-16 or UTF-32 (a byte order mark, or a zero byte where UTF-8 JSON has none):
    /// `JSONDecoder` converts such text first, so it is decoded as one document, as before.
    static func needsWholeDocument(_ head: Data) -> Bool {
        let bytes = Array(head.prefix(2))
        guard bytes.count == 2 else { return false }
        return bytes[0] == 0 || bytes[1] == 0 || bytes == [0xFE, 0xFF] || bytes == [0xFF, 0xFE]
    }

    /// Runs `body`, whose only errors are ``HARImportError``s (its callbacks throw nothing else).
    static func onlyImportErrors<T>(_ body: () throws -> T) throws(HARImportError) -> T {
        do {
            return try body()
        } catch let error as HARImportError {
            throw error
        } catch {
            throw HARImportError(code: .unreadable, message: reason(error))
        }
    }
}
