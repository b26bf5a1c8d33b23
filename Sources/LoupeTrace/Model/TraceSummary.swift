import Foundation
import Loupe

/// The columns of one exchange that lists show, without headers or bodies.
public struct TraceSummary: Sendable, Codable, Hashable, Identifiable {
    public var id: UUID
    /// Order of arrival in the store; larger is newer.
    public var sequence: Int64
    public var operation: String
    public var method: String
    public var url: String {
        didSet { (host, pathAndQuery) = Self.parts(of: url) }
    }
    /// The URL's host (empty when the URL has none): the store's `host` column, or read from `url` once.
    public private(set) var host: String
    /// The URL's path and query, read from `url` once rather than on every access (lists draw it every frame).
    public private(set) var pathAndQuery: String
    public var startedAt: Date
    /// Seconds, when ended.
    public var duration: TimeInterval?
    public var outcome: ExchangeOutcome
    public var status: Int?
    public var error: String?
    public var attemptCount: Int
    public var replayOf: UUID?
    /// The response body's true size in bytes (not what was kept of it), when there was a body: the `size` sort
    /// key of ``ExchangeOrder``.
    public var responseBodySize: Int?
    /// The app that sent the exchange over the live link (``TraceSource/app``), nil when recorded in-process: the
    /// exchanges list's SOURCE column.
    public var sourceApp: String?
    /// The stream the exchange carried (counts, bytes and close; no messages), nil for a request and response.
    /// Not in the JSON (`loupe list --json` writes it its own way).
    public var stream: TraceStream?

    /// The stream, when it opened (a 101 or 2xx head, not refused): such a row is listed by what the stream did,
    /// not by its last head (a finished event stream's `204`, a WebSocket's `101 … 0 B`).
    public var openedStream: TraceStream? {
        // A gRPC call is listed by its status even when no response came (a refused connection is `UNAVAILABLE`).
        if let stream, stream.kind == .grpc, outcome != .shortCircuited { return stream }
        guard let stream, outcome != .shortCircuited, let status, status == 101 || (200..<300).contains(status) else {
            return nil
        }
        return stream
    }

    public init(id: UUID, sequence: Int64, operation: String, method: String, url: String, startedAt: Date,
                duration: TimeInterval?, outcome: ExchangeOutcome, status: Int?, error: String?, attemptCount: Int,
                replayOf: UUID?, host: String? = nil, path: String? = nil, responseBodySize: Int? = nil,
                sourceApp: String? = nil, stream: TraceStream? = nil) {
        self.id = id
        self.sequence = sequence
        self.operation = operation
        self.method = method
        self.url = url
        // A store passes its `host` and `path` columns (written from one parse of the URL); only a URL that did
        // not parse then, or a summary made without them, is parsed here, once.
        if let host, let path, !(host.isEmpty && path.isEmpty) {
            self.host = host
            self.pathAndQuery = (path.isEmpty ? "/" : path) + Self.query(of: url)
        } else {
            (self.host, self.pathAndQuery) = Self.parts(of: url)
        }
        self.startedAt = startedAt
        self.duration = duration
        self.outcome = outcome
        self.status = status
        self.error = error
        self.attemptCount = attemptCount
        self.replayOf = replayOf
        self.responseBodySize = responseBodySize
        self.sourceApp = sourceApp
        self.stream = stream
    }

    private enum CodingKeys: String, CodingKey {
        case id, sequence, operation, method, url, startedAt, duration, outcome, status, error, attemptCount, replayOf
        case responseBodySize, sourceApp
    }

    // Written by hand so that the JSON keeps its shape: `host` and `pathAndQuery` are derived, not encoded.
    // `responseBodySize` came later: an optional key, absent when there is no body and in older JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UUID.self, forKey: .id), sequence: try container.decode(Int64.self, forKey: .sequence),
            operation: try container.decode(String.self, forKey: .operation),
            method: try container.decode(String.self, forKey: .method), url: try container.decode(String.self, forKey: .url),
            startedAt: try container.decode(Date.self, forKey: .startedAt),
            duration: try container.decodeIfPresent(TimeInterval.self, forKey: .duration),
            outcome: try container.decode(ExchangeOutcome.self, forKey: .outcome),
            status: try container.decodeIfPresent(Int.self, forKey: .status),
            error: try container.decodeIfPresent(String.self, forKey: .error),
            attemptCount: try container.decode(Int.self, forKey: .attemptCount),
            replayOf: try container.decodeIfPresent(UUID.self, forKey: .replayOf),
            responseBodySize: try container.decodeIfPresent(Int.self, forKey: .responseBodySize),
            sourceApp: try container.decodeIfPresent(String.self, forKey: .sourceApp))
    }

    /// `?` and the query of `url`, or nothing: what lies between the first `?` and a `#`.
    static func query(of url: String) -> String {
        // By bytes: `?` and `#` are ASCII, and walking characters (graphemes) costs more than the rest of a row.
        let bytes = url.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return "" }
        let end = bytes[mark...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        return String(url[mark..<end])
    }

    /// The host, and the path and query, of `url` (the whole text when it does not parse).
    ///
    /// A plain URL (``StoredURLParts/plainRanges(_:)``, whose host and path are `URLComponents`' own) is cut
    /// directly: its path and query are the bytes from the path to the `#` or the end, as `URLComponents` joins
    /// them. Parsing with `URLComponents` (and its IDNA check of the host) was most of the cost of every
    /// exchange an in-memory store took; anything else still goes through it.
    package static func parts(of url: String) -> (host: String, pathAndQuery: String) {
        var text = url
        let plain = text.withUTF8 { bytes -> (host: String, pathAndQuery: String)? in
            guard let (host, path) = StoredURLParts.plainRanges(bytes) else { return nil }
            // The path ends at the first `?` or `#`; the query, when there is one, runs from that `?` to the `#`.
            var end = path.upperBound
            while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[host]), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[path.lowerBound..<end]), as: UTF8.self))
        }
        if let plain { return plain }
        return partsParsing(url)
    }

    /// ``parts(of:)`` through `URLComponents`, for every URL (tests compare the two).
    static func partsParsing(_ url: String) -> (host: String, pathAndQuery: String) {
        guard let components = URLComponents(string: url) else { return ("", url) }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return (components.host ?? "", components.percentEncodedQuery.map { path + "?" + $0 } ?? path)
    }
}
