import Foundation
import LoupeTrace

/// An HTTP Archive (HAR 1.2): the JSON file browsers, proxies and inspectors exchange traffic in.
///
/// The types mirror the spec (<http://www.softwareishard.com/blog/har-12-spec/>) field for field. Decoding is
/// lenient, because real files bend the spec: optional fields may be missing or `null`, numbers may arrive as
/// strings, and unknown fields (`comment`s, `_custom` fields of other tools) are ignored. Loupe's own extra data
/// travels in each entry's `_loupe` field (``HAREntry/loupe``).
///
/// ```swift
/// let document = HARExporter().document(for: exchanges)
/// let exchanges = try HARImporter().exchanges(from: data)
/// ```
public struct HARDocument: Sendable, Hashable, Codable {
    public var log: HARLog

    public init(log: HARLog) {
        self.log = log
    }
}

/// The root of a HAR file's content.
public struct HARLog: Sendable, Hashable, Codable {
    /// `1.2` when Loupe writes; `1.1` and `1.2` are read (empty or missing means `1.1`, as the spec says).
    public var version: String
    public var creator: HARCreator
    public var browser: HARCreator?
    public var pages: [HARPage]?
    public var entries: [HAREntry]
    public var comment: String?

    public init(version: String = "1.2", creator: HARCreator, browser: HARCreator? = nil, pages: [HARPage]? = nil,
                entries: [HAREntry], comment: String? = nil) {
        self.version = version
        self.creator = creator
        self.browser = browser
        self.pages = pages
        self.entries = entries
        self.comment = comment
    }

    /// The versions this reader understands.
    public static let supportedVersions: Set<String> = ["1.1", "1.2"]

    enum CodingKeys: String, CodingKey { case version, creator, browser, pages, entries, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // The version is checked before the entries are read, so a wrong version is reported as such.
        let version = container.lenientString(.version) ?? ""
        self.version = version.isEmpty ? "1.1" : version
        guard Self.supportedVersions.contains(self.version) else {
            throw HARImportError.unsupportedVersion(self.version)
        }
        guard container.contains(.entries) else { throw HARImportError.notHAR("log.entries is missing") }
        creator = (try? container.decodeIfPresent(HARCreator.self, forKey: .creator)) ?? HARCreator(name: "", version: "")
        browser = try? container.decodeIfPresent(HARCreator.self, forKey: .browser)
        pages = try? container.decodeIfPresent([HARPage].self, forKey: .pages)
        entries = try container.decode([HAREntry].self, forKey: .entries)
        comment = container.lenientString(.comment)
    }
}

/// The application that wrote the file (`creator`) or the browser it recorded (`browser`).
public struct HARCreator: Sendable, Hashable, Codable {
    public var name: String
    public var version: String
    public var comment: String?

    public init(name: String, version: String, comment: String? = nil) {
        self.name = name
        self.version = version
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, version, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = container.lenientString(.name) ?? ""
        version = container.lenientString(.version) ?? ""
        comment = container.lenientString(.comment)
    }
}

/// A page a browser loaded; entries point at it with `pageref`. Loupe reads and ignores pages.
public struct HARPage: Sendable, Hashable, Codable {
    public var startedDateTime: String
    public var id: String
    public var title: String
    public var comment: String?

    public init(startedDateTime: String, id: String, title: String, comment: String? = nil) {
        self.startedDateTime = startedDateTime
        self.id = id
        self.title = title
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case startedDateTime, id, title, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = container.lenientString(.startedDateTime) ?? ""
        id = container.lenientString(.id) ?? ""
        title = container.lenientString(.title) ?? ""
        comment = container.lenientString(.comment)
    }
}

/// One request and its response.
public struct HAREntry: Sendable, Hashable, Codable {
    public var pageref: String?
    /// ISO 8601 with milliseconds, e.g. `2024-05-01T12:00:00.123Z`.
    public var startedDateTime: String
    /// Milliseconds: the sum of the known ``timings`` (phases of `-1` excluded).
    public var time: Double
    public var request: HARRequest
    public var response: HARResponse
    public var cache: HARCache
    public var timings: HARTimings
    public var serverIPAddress: String?
    public var connection: String?
    public var comment: String?
    /// Loupe's own record of the exchange (`_loupe`): everything HAR has no field for.
    public var loupe: HARLoupeEntry?
    /// Chrome's `_resourceType` (`websocket`, `eventsource` for Loupe's streams).
    public var resourceType: String?
    /// Chrome's `_webSocketMessages`: a WebSocket's messages, both ways.
    public var webSocketMessages: [HARWebSocketMessage]?

    public init(pageref: String? = nil, startedDateTime: String, time: Double, request: HARRequest,
                response: HARResponse, cache: HARCache = HARCache(), timings: HARTimings,
                serverIPAddress: String? = nil, connection: String? = nil, comment: String? = nil,
                loupe: HARLoupeEntry? = nil, resourceType: String? = nil, webSocketMessages: [HARWebSocketMessage]? = nil) {
        self.resourceType = resourceType
        self.webSocketMessages = webSocketMessages
        self.pageref = pageref
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.connection = connection
        self.comment = comment
        self.loupe = loupe
    }

    enum CodingKeys: String, CodingKey {
        case pageref, startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case loupe = "_loupe"
        case resourceType = "_resourceType"
        case webSocketMessages = "_webSocketMessages"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pageref = container.lenientString(.pageref)
        startedDateTime = try container.requiredString(.startedDateTime)
        time = container.lenientDouble(.time) ?? -1
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decodeIfPresent(HARResponse.self, forKey: .response) ?? HARResponse.none
        cache = (try? container.decodeIfPresent(HARCache.self, forKey: .cache)) ?? HARCache()
        timings = (try? container.decodeIfPresent(HARTimings.self, forKey: .timings)) ?? HARTimings.unknown
        serverIPAddress = container.lenientString(.serverIPAddress)
        connection = container.lenientString(.connection)
        comment = container.lenientString(.comment)
        // Loupe data of a format this version does not know is ignored; a known format must be whole.
        let format = try? container.decodeIfPresent(HARLoupeEntry.FormatProbe.self, forKey: .loupe)?.format
        loupe = format == HARLoupeEntry.currentFormat
            ? try container.decodeIfPresent(HARLoupeEntry.self, forKey: .loupe) : nil
        resourceType = container.lenientString(.resourceType)
        // Messages another tool wrote oddly are left out, never the whole entry.
        webSocketMessages = try? container.decodeIfPresent([HARWebSocketMessage].self, forKey: .webSocketMessages)
    }
}

/// Cache state before and after the request; Loupe writes it empty (`{}`) and ignores it when reading.
public struct HARCache: Sendable, Hashable, Codable {
    public var comment: String?

    public init(comment: String? = nil) {
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case comment }

    public init(from decoder: any Decoder) throws {
        comment = try decoder.container(keyedBy: CodingKeys.self).lenientString(.comment)
    }
}

/// Phases of the request in milliseconds; `-1` (or absent) when a phase is unknown or does not apply.
public struct HARTimings: Sendable, Hashable, Codable {
    public var blocked: Double?
    public var dns: Double?
    public var connect: Double?
    public var send: Double
    public var wait: Double
    public var receive: Double
    /// Part of `connect` (HAR counts TLS inside connect).
    public var ssl: Double?
    public var comment: String?

    public init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double,
                receive: Double, ssl: Double? = -1, comment: String? = nil) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
        self.comment = comment
    }

    /// Every phase unknown.
    public static let unknown = HARTimings(send: -1, wait: -1, receive: -1)

    /// The sum of the known phases (`ssl` is part of `connect`, so it is not added again).
    public var knownTotal: Double {
        [blocked, dns, connect, send, wait, receive].reduce(0) { total, phase in
            guard let phase, phase >= 0, phase.isFinite else { return total }
            return total + phase
        }
    }

    enum CodingKeys: String, CodingKey { case blocked, dns, connect, send, wait, receive, ssl, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = container.lenientDouble(.blocked)
        dns = container.lenientDouble(.dns)
        connect = container.lenientDouble(.connect)
        send = container.lenientDouble(.send) ?? -1
        wait = container.lenientDouble(.wait) ?? -1
        receive = container.lenientDouble(.receive) ?? -1
        ssl = container.lenientDouble(.ssl)
        comment = container.lenientString(.comment)
    }
}
