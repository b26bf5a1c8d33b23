import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// Reads HAR files, Loupe's own or other tools' (browsers, mitmproxy, Charles, Proxyman, Insomnia), into exchanges.
///
/// An entry with Loupe's `_loupe` data becomes exactly the exchange that was exported. Any other entry becomes an
/// exchange with one attempt whose times come from the entry's timings (phases of `-1` or missing are unknown),
/// outcome from its status (`0` is a transport error, with Chrome's `_error` as the reason), and operation
/// `METHOD /path`. Cookies, query strings and pages are not imported: the headers and URL already hold them.
///
/// Every exchange passes through ``redaction`` and ``bodyCap`` as if it had been recorded, because a HAR from
/// elsewhere may hold secrets. ``importFile(at:into:)`` writes all exchanges in one store write or none.
///
/// Files are read entry by entry (``HARStreamReader``): memory holds one entry at a time, whatever the file's size.
public struct HARImporter: Sendable {
    /// Applied to every imported exchange (URL, headers, bodies, and the URL quoted in free text).
    public var redaction: RedactionPolicy
    /// Bodies longer than this many bytes are kept cut and marked truncated. Default 1 MiB, as the recorder's.
    public var bodyCap: Int
    private let makeID: @Sendable () -> UUID

    /// - Parameter makeID: ids for entries without `_loupe` data (inject for deterministic tests). By default
    ///   version-7 ids made in-process, as the client's: Foundation's `UUID()` opens and reads
    ///   `/dev/urandom` on every call on Linux.
    public init(redaction: RedactionPolicy = RedactionPolicy(), bodyCap: Int = 1 << 20,
                makeID: @escaping @Sendable () -> UUID = { ExchangeID.make() }) {
        self.redaction = redaction
        self.bodyCap = bodyCap
        self.makeID = makeID
    }

    /// Reads, converts and stores every entry of the file in one write; returns how many were imported.
    ///
    /// Nothing is written when anything in the file is wrong. The exchanges are held in memory until written; for
    /// a SQLite store, ``importFile(at:into:)-(_,SQLiteTraceStore)`` streams them instead.
    @discardableResult
    public func importFile(at url: URL, into store: some TraceStore) throws -> Int {
        let exchanges = try exchanges(contentsOf: url)
        try store.write(exchanges)
        return exchanges.count
    }

    /// The exchanges of the HAR file at `url`, in file order (read entry by entry; the list is what grows).
    public func exchanges(contentsOf url: URL) throws(HARImportError) -> [TraceExchange] {
        var exchanges: [TraceExchange] = []
        try Self.onlyImportErrors { _ = try forEachExchange(contentsOf: url) { exchanges.append($0) } }
        return exchanges
    }

    /// The exchanges of a HAR file's bytes, in file order.
    public func exchanges(from data: Data) throws(HARImportError) -> [TraceExchange] {
        var exchanges: [TraceExchange] = []
        try Self.onlyImportErrors { _ = try forEachExchange(in: data) { exchanges.append($0) } }
        return exchanges
    }

    /// The exchanges of a HAR decoded as one document: for text the streaming reader does not take (UTF-16 or
    /// UTF-32, which `JSONDecoder` converts first).
    func wholeDocumentExchanges(from data: Data) throws(HARImportError) -> [TraceExchange] {
        var document = try HARImporter.document(from: data)
        // Entries are converted and released one by one, so bodies are held as text and bytes only one at a time.
        var entries = document.log.entries
        document.log.entries = []
        entries.reverse()
        var exchanges: [TraceExchange] = []
        exchanges.reserveCapacity(entries.count)
        var index = 0
        while let entry = entries.popLast() {
            exchanges.append(try exchange(from: entry, index: index))
            index += 1
        }
        return exchanges
    }

    /// Decodes a HAR document; errors name the problem in one line.
    public static func document(from data: Data) throws(HARImportError) -> HARDocument {
        guard data.contains(where: { !Self.isJSONWhitespace($0) }) else {
            throw HARImportError(code: .empty, message: "the file is empty")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(HARDocument.self, from: data)
        } catch let error as HARImportError {
            throw error
        } catch let error as DecodingError {
            throw HARDecodingFailure.describe(error, in: data)
        } catch {
            throw HARImportError(code: .malformedJSON, message: "not valid JSON: \(Self.reason(error))")
        }
    }

    /// One entry as an exchange (redacted and capped); `index` names the entry in errors.
    public func exchange(from entry: HAREntry, index: Int) throws(HARImportError) -> TraceExchange {
        let path = "log.entries[\(index)]"
        let requestData = try Self.requestBytes(entry.request.postData, path: path + ".request.postData")
        let responseData = try Self.bytes(
            entry.response.content.text, encoding: entry.response.content.encoding, path: path + ".response.content")
        var exchange: TraceExchange
        if let loupe = entry.loupe {
            exchange = Self.exchange(entry, loupe: loupe, requestData: requestData, responseData: responseData)
        } else {
            guard let startedAt = HARDate.date(from: entry.startedDateTime) else {
                throw .invalidEntry(path + ".startedDateTime",
                                    "not an ISO 8601 date: \"\(entry.startedDateTime.prefix(40))\"")
            }
            exchange = HARForeignEntry.exchange(
                entry, id: makeID(), startedAt: startedAt, requestData: requestData, responseData: responseData)
            // A WebSocket Chrome recorded: its messages as it wrote them.
            exchange.stream = entry.webSocketMessages.map(HARForeignEntry.stream)
        }
        exchange = try HARNumbers.checked(exchange, path: path, fromLoupe: entry.loupe != nil)
        return Self.onMicrosecondGrid(redacted(exchange))
    }

    // MARK: Loupe's own entries

    private static func exchange(_ entry: HAREntry, loupe: HARLoupeEntry, requestData: Data?, responseData: Data?)
        -> TraceExchange {
        func body(_ data: Data?, _ record: HARLoupeBody?) -> TraceBody? {
            guard let record else { return data.map { TraceBody(data: $0, size: $0.count, isTruncated: false) } }
            return TraceBody(data: data ?? Data(), size: record.size, isTruncated: record.truncated)
        }
        let status = loupe.status
        return TraceExchange(
            id: loupe.id, operation: loupe.operation, method: entry.request.method, url: entry.request.url,
            startedAt: loupe.startedAt, endedAt: loupe.endedAt,
            outcome: ExchangeOutcome(rawValue: loupe.outcome) ?? HARForeignEntry.outcome(status: status),
            status: status, error: loupe.error,
            requestHeaders: entry.request.headers.map { TraceHeader(name: $0.name, value: $0.value) },
            requestBody: body(requestData, loupe.requestBody),
            responseHeaders: entry.response.headers.map { TraceHeader(name: $0.name, value: $0.value) },
            responseBody: body(responseData, loupe.responseBody),
            attempts: loupe.attempts, events: loupe.events, replayOf: loupe.replayOf, source: loupe.source,
            stream: loupe.stream?.stream ?? entry.webSocketMessages.map(HARForeignEntry.stream))
    }

    // MARK: Bodies

    private static func requestBytes(_ postData: HARPostData?, path: String) throws(HARImportError) -> Data? {
        guard let postData else { return nil }
        if let text = postData.text { return try bytes(text, encoding: postData.encoding, path: path) }
        // Only form fields: rebuild the form body they came from.
        guard let params = postData.params else { return Data() }
        let form = params.map { param in
            Self.formEncoded(param.name) + "=" + Self.formEncoded(param.value ?? "")
        }.joined(separator: "&")
        return Data(form.utf8)
    }

    private static func bytes(_ text: String?, encoding: String?, path: String) throws(HARImportError) -> Data? {
        guard let text else { return nil }
        guard let data = HARBodyText.decode(text, encoding: encoding) else {
            throw .invalidEntry(path + ".text", "encoding is base64, but the text is not valid base64")
        }
        return data
    }

    /// Every byte but ASCII letters, digits and `-._~` percent-encoded, with the client's own encoder (Foundation's
    /// `alphanumerics` would let non-ASCII letters through unencoded).
    private static func formEncoded(_ text: String) -> String {
        RequestTarget.percentEncode(text, allowed: formAllowed)
    }

    private static let formAllowed = ASCIISet(unreservedPlus: "")

    // MARK: Redaction

    /// The exchange as the recorder would have stored it: redacted by name and by value as the recorder redacts
    /// (``RedactionPolicy/redact(exchange:alsoSent:)``: a token in a header is scrubbed from the body that echoes
    /// it, the URLs quoted in text lose their secrets), then bodies capped.
    private func redacted(_ exchange: TraceExchange) -> TraceExchange {
        var exchange = redaction.redact(exchange: exchange)
        exchange.requestBody = capped(exchange.requestBody)
        exchange.responseBody = capped(exchange.responseBody)
        return exchange
    }

    /// The body (redacted whole) cut at ``bodyCap``; the recorded size stays the original one.
    private func capped(_ body: TraceBody?) -> TraceBody? {
        guard var body else { return nil }
        let limit = max(0, bodyCap)
        if body.data.count > limit {
            body.size = max(body.size, body.data.count)
            body.data = Data(body.data.prefix(limit))
            body.isTruncated = true
        }
        return body
    }

    // MARK: Times

    /// Every time rounded to the microsecond, as `_loupe` writes them, so that what an import gives exports and
    /// imports back to itself.
    static func onMicrosecondGrid(_ exchange: TraceExchange) -> TraceExchange {
        func grid(_ date: Date) -> Date { Date(timeIntervalSince1970: HARWriter.microseconds(date.timeIntervalSince1970)) }
        var exchange = exchange
        exchange.startedAt = grid(exchange.startedAt)
        exchange.endedAt = exchange.endedAt.map(grid)
        for index in exchange.attempts.indices {
            exchange.attempts[index].startedAt = grid(exchange.attempts[index].startedAt)
            exchange.attempts[index].requestSentAt = exchange.attempts[index].requestSentAt.map(grid)
            exchange.attempts[index].firstByteAt = exchange.attempts[index].firstByteAt.map(grid)
            exchange.attempts[index].endedAt = exchange.attempts[index].endedAt.map(grid)
        }
        for index in exchange.events.indices {
            exchange.events[index].at = grid(exchange.events[index].at)
        }
        for index in exchange.stream?.messages.indices ?? 0..<0 {
            exchange.stream!.messages[index].at = grid(exchange.stream!.messages[index].at)
        }
        return exchange
    }

    // MARK: Helpers

    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
