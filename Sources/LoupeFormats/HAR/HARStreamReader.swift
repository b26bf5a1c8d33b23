import Foundation
import LoupeTrace

/// Walks a HAR file once, entry by entry: checks its JSON from the first byte to the last and the shape of its
/// log, and hands the bytes of each element of `log.entries` to a callback, so that only one entry is in memory at
/// a time (with the read window, see ``JSONStream``).
///
/// Errors are the ones decoding the whole document at once gave, in the same order of precedence: a syntax error
/// anywhere (the file is read to its end even after a bad entry); then the top level not an object, no `log`
/// object, an unsupported `log.version` (wherever it sits in the file), `log.entries` missing or not an array;
/// then the first entry refused. As with `JSONDecoder`, the first of duplicate keys counts and later ones are
/// skipped; keys may be written with escapes.
struct HARStreamReader {
    private var json: JSONStream
    /// The first problem with the log's shape, reported once the text is known to be valid JSON.
    private var shapeProblem: HARImportError?
    /// The first entry refused by the callback.
    private var entryProblem: HARImportError?
    private var version: String?
    private var sawLog = false
    private var sawEntries = false

    init(_ source: JSONStream.Source, chunkSize: Int = 1 << 20) {
        json = JSONStream(source, chunkSize: chunkSize)
    }

    /// The most bytes of the file held at once.
    var peakBufferSize: Int { json.peakBufferSize }

    /// Reads the whole file, calling `entry` with each entry's bytes and index in order (none when `nil`); returns
    /// how many entries the file has. An ``HARImportError`` thrown by `entry` stops the calls and is reported after
    /// the rest of the file is checked, as the precedence above says; other errors are rethrown at once.
    mutating func read(_ entry: ((Data, Int) throws -> Void)?) throws -> Int {
        try read(withOffsets: entry.map { entry in { bytes, index, _ in try entry(bytes, index) } })
    }

    /// As ``read(_:)``; `entry` also gets the offset of the entry's first byte in the file (its bytes run from
    /// there for their count), so a reader can come back for one entry later.
    mutating func read(withOffsets entry: ((Data, Int, Int) throws -> Void)?) throws -> Int {
        let hasByteOrderMark = try json.ensure(3) >= 3 && json.window[0...2].elementsEqual([0xEF, 0xBB, 0xBF])
        if hasByteOrderMark { json.advance(by: 3) }  // as the decoder skips it
        guard let first = try json.skipWhitespace() else {
            throw hasByteOrderMark ? json.truncated() : HARImportError(code: .empty, message: "the file is empty")
        }
        var count = 0
        if first == UInt8(ascii: "{") {
            try readObject { reader, key in
                guard key == "log", !reader.sawLog else { return false }
                reader.sawLog = true
                try reader.readLog(count: &count, entry)
                return true
            }
        } else {
            shapeProblem = .notHAR("the top level is not a JSON object")
            try json.skipValue()
        }
        if try json.skipWhitespace() != nil { throw json.malformed("invalid value") }
        if let shapeProblem { throw shapeProblem }
        if !sawLog { throw HARImportError.notHAR("there is no \"log\" object") }
        if let version, !HARLog.supportedVersions.contains(version) { throw HARImportError.unsupportedVersion(version) }
        if !sawEntries { throw HARImportError.notHAR("log.entries is missing") }
        if let entryProblem { throw entryProblem }
        return count
    }

    /// The members of the object whose `{` is next: `member` reads the value of a key it wants and returns `true`,
    /// or returns `false` for the value to be skipped.
    private mutating func readObject(_ member: (inout HARStreamReader, String?) throws -> Bool) throws {
        try json.open()
        if try json.nextToken() == UInt8(ascii: "}") {
            json.advance()
            json.depth -= 1
            return
        }
        repeat {
            let key = try readKey()
            if try !member(&self, key) { try json.skipValue() }
        } while try !json.nextAfterMember(isObject: true, skippingKey: false)
    }

    /// A key and its colon; `nil` for a key that cannot be one this reader wants (long, or not decodable).
    private mutating func readKey() throws -> String? {
        guard try json.nextToken() == JSONStream.quote else { throw json.malformed("invalid value") }
        json.beginCapture()
        try json.skipString(validatingUTF8: true)
        let bytes = json.endCapture()
        guard try json.nextToken() == UInt8(ascii: ":") else { throw json.malformed("invalid value") }
        json.advance()
        guard bytes.count <= 64 else { return nil }
        guard bytes.contains(JSONStream.backslash) else { return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: bytes)
    }

    /// The value of `log`.
    private mutating func readLog(count: inout Int, _ entry: ((Data, Int, Int) throws -> Void)?) throws {
        switch try json.nextToken() {
        case UInt8(ascii: "{"):
            break
        case UInt8(ascii: "n"):
            shapeProblem = shapeProblem ?? .notHAR("log is null")
            try json.skipValue()
            return
        default:
            shapeProblem = shapeProblem ?? .notHAR("log is not an object")
            try json.skipValue()
            return
        }
        var sawVersion = false
        try readObject { reader, key in
            switch key {
            case "version" where !sawVersion:
                sawVersion = true
                reader.version = try reader.readVersion()
            case "entries" where !reader.sawEntries:
                reader.sawEntries = true
                try reader.readEntries(count: &count, entry)
            default:
                return false
            }
            return true
        }
        // As HARLog reads it: missing, null or not text means 1.1.
        if version?.isEmpty ?? true { version = "1.1" }
    }

    /// Whether Loupe reads files of `version` (missing or empty means 1.1).
    private static func isSupported(_ version: String) -> Bool {
        version.isEmpty || HARLog.supportedVersions.contains(version)
    }

    /// `log.version` as ``HARLog`` reads it: text, or a number or boolean written as text; otherwise none.
    private mutating func readVersion() throws -> String? {
        let first = try json.nextToken()
        guard first != UInt8(ascii: "{"), first != UInt8(ascii: "[") else {
            try json.skipValue()
            return nil
        }
        json.beginCapture()
        try json.skipValue()
        let value = json.endCapture()
        return try? JSONDecoder().decode(VersionProbe.self, from: Data("{\"version\":".utf8) + value + Data("}".utf8)).version
    }

    private struct VersionProbe: Decodable {
        var version: String?
        enum CodingKeys: String, CodingKey { case version }
        init(from decoder: any Decoder) throws {
            version = try decoder.container(keyedBy: CodingKeys.self).lenientString(.version)
        }
    }

    /// `log.entries`: each element's bytes to `entry`, until it refuses one.
    private mutating func readEntries(count: inout Int, _ entry: ((Data, Int, Int) throws -> Void)?) throws {
        switch try json.nextToken() {
        case UInt8(ascii: "["):
            break
        case UInt8(ascii: "n"):
            shapeProblem = shapeProblem ?? .notHAR("log.entries is null")
            return try json.skipValue()
        default:
            shapeProblem = shapeProblem ?? .notHAR("log.entries is not an array")
            return try json.skipValue()
        }
        try json.open()
        if try json.nextToken() == UInt8(ascii: "]") {
            json.advance()
            json.depth -= 1
            return
        }
        repeat {
            guard let entry, entryProblem == nil, version.map(Self.isSupported) ?? true else {
                try json.skipValue()
                count += 1
                continue
            }
            let start = json.offset
            json.beginCapture()
            try json.skipValue()
            let bytes = json.endCapture()
            do {
                try entry(bytes, count, start)
            } catch let problem as HARImportError {
                entryProblem = problem
            }
            count += 1
        } while try !json.nextAfterMember(isObject: false, skippingKey: false)
    }
}
