import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFormats
import PropertyBased
import Testing
@testable import LoupeTestSupport

/// Numbers no clock or server produced, in HAR files: import refuses the entry (instants) or treats the value
/// as unknown (durations, statuses), and what it imports is finite and in range everywhere.
@Suite("HAR numbers")
struct HARNumberTests {
    typealias JSON = [String: Any]

    /// A Loupe HAR and a Chrome HAR as JSON objects, to edit.
    static func document(_ data: Data) throws -> JSON {
        try #require(try JSONSerialization.jsonObject(with: data) as? JSON)
    }

    static let loupeHAR = try! HARExporter().data(for: HARFixtures.exchanges)
    static let chromeHAR = Data(HARFixtures.chromeHAR.utf8)

    /// One step of a path into a JSON document: a key, or an index into an array.
    enum Step: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case key(String), index(Int)
        init(stringLiteral value: String) { self = .key(value) }
        init(integerLiteral value: Int) { self = .index(value) }
    }

    /// Sets `value` at `path` inside `object` (steps that lead nowhere are skipped).
    static func set(_ value: Any, at path: [Step], in object: inout Any) {
        guard let first = path.first else {
            object = value
            return
        }
        let rest = Array(path.dropFirst())
        switch first {
        case .key(let key):
            guard var dictionary = object as? JSON else { return }
            var child = dictionary[key] ?? JSON()
            set(value, at: rest, in: &child)
            dictionary[key] = child
            object = dictionary
        case .index(let index):
            guard var array = object as? [Any], array.indices.contains(index) else { return }
            set(value, at: rest, in: &array[index])
            object = array
        }
    }

    static func importing(_ document: JSON) throws(HARImportError) -> [TraceExchange] {
        let data = try! JSONSerialization.data(withJSONObject: document)
        return try HARImporter().exchanges(from: data)
    }

    /// Everything Loupe keeps is finite and within ``TraceTime``'s ranges.
    static func expectSane(_ exchange: TraceExchange, _ context: String) {
        func inRange(_ date: Date?) -> Bool { date.map { TraceTime.range.contains($0.timeIntervalSince1970) } ?? true }
        #expect(inRange(exchange.startedAt) && inRange(exchange.endedAt), "\(context)")
        if let duration = exchange.duration { #expect((0...TraceTime.maxDuration).contains(duration), "\(context)") }
        #expect(exchange.status.map { (100...999).contains($0) } ?? true, "\(context)")
        for attempt in exchange.attempts {
            #expect(inRange(attempt.startedAt) && inRange(attempt.requestSentAt) && inRange(attempt.firstByteAt)
                && inRange(attempt.endedAt), "\(context)")
            #expect(attempt.retryDelay.map { (0...TraceTime.maxDuration).contains($0) } ?? true, "\(context)")
        }
        for event in exchange.events { #expect(inRange(event.at), "\(context)") }
    }

    @Test("an absurd time or timing in another tool's HAR is unknown, not a crash or a year-300000 end")
    func foreignDurations() throws {
        for value in [1e22, -1e300, 1e300, 1e13] {
            var object: Any = try Self.document(Self.chromeHAR)
            Self.set(value, at: ["log", "entries", 0, "time"], in: &object)
            Self.set(value, at: ["log", "entries", 0, "timings", "receive"], in: &object)
            Self.set(-value, at: ["log", "entries", 0, "timings", "wait"], in: &object)
            let exchanges = try Self.importing(object as! JSON)
            for exchange in exchanges { Self.expectSane(exchange, "time = \(value)") }
            #expect(exchanges[0].duration.map { $0 < 1e6 } ?? true, "time = \(value)")
        }
    }

    @Test("a Loupe HAR with a time outside years 0000–9999 is refused, naming the field", arguments: [
        (["_loupe", "startedAt"], 1e300, "_loupe.startedAt"), (["_loupe", "endedAt"], -1e300, "_loupe.endedAt"),
        (["_loupe", "attempts", 0, "endedAt"], 1e22, "_loupe.attempts[0].endedAt"),
        (["_loupe", "events", 0, "at"], -1e22, "_loupe.events[0].at"),
        (["_loupe", "startedAt"], 253_402_300_800.5, "_loupe.startedAt"),
    ] as [([Step], Double, String)])
    func loupeInstantsRefused(path: [Step], value: Double, field: String) throws {
        var object: Any = try Self.document(Self.loupeHAR)
        Self.set(value, at: ["log", "entries", 0] + path, in: &object)
        let error = #expect(throws: HARImportError.self) { try Self.importing(object as! JSON) }
        #expect(error?.code == .invalidEntry)
        #expect(error?.message == "log.entries[0].\(field): a time outside the years 0000–9999", "\(String(describing: error))")
    }

    @Test("absurd retry delays and statuses become unknown; non-numbers are refused in one line")
    func loupeDurationsAndStatuses() throws {
        var object: Any = try Self.document(Self.loupeHAR)
        Self.set(1e300, at: ["log", "entries", 0, "_loupe", "attempts", 1, "retryDelay"], in: &object)
        Self.set(-5, at: ["log", "entries", 0, "_loupe", "attempts", 0, "status"], in: &object)
        Self.set(1e15, at: ["log", "entries", 0, "_loupe", "status"], in: &object)
        let exchanges = try Self.importing(object as! JSON)
        #expect(exchanges[0].attempts[1].retryDelay == nil)
        #expect(exchanges[0].attempts[0].status == nil)
        #expect(exchanges[0].status == nil)
        for exchange in exchanges { Self.expectSane(exchange, "retryDelay") }

        var text: Any = try Self.document(Self.loupeHAR)
        Self.set("-inf", at: ["log", "entries", 0, "_loupe", "startedAt"], in: &text)
        let error = #expect(throws: HARImportError.self) { try Self.importing(text as! JSON) }
        #expect(error.map { !$0.message.contains("\n") } == true)
        // JSON itself has no infinity: 1e400 is not a number a JSON reader accepts.
        let overflow = String(decoding: Self.loupeHAR, as: UTF8.self)
            .replacingOccurrences(of: #""retryDelay" : 0.19925"#, with: #""retryDelay" : 1e400"#)
        #expect(overflow != String(decoding: Self.loupeHAR, as: UTF8.self))
        #expect(throws: HARImportError.self) { try HARImporter().exchanges(from: Data(overflow.utf8)) }
    }

    static let extremes: [Double] = [
        1e22, -1e22, 1e300, -1e300, -1, -0.0, 0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        9.2e18, -9.2e18, 1e12, 1e15, 253_402_300_800, -62_167_219_201, 1_700_000_000, 0.5,
    ]
    /// Where the numbers go: every time, timing, status and size field of the first entries.
    static let loupeFields: [[Step]] = [
        ["time"], ["timings", "blocked"], ["timings", "send"], ["timings", "wait"], ["timings", "receive"],
        ["_loupe", "startedAt"], ["_loupe", "endedAt"], ["_loupe", "status"], ["_loupe", "attempts", 0, "startedAt"],
        ["_loupe", "attempts", 0, "endedAt"], ["_loupe", "attempts", 0, "firstByteAt"], ["_loupe", "attempts", 1, "retryDelay"],
        ["_loupe", "events", 0, "at"], ["response", "status"], ["response", "bodySize"], ["response", "content", "size"],
        ["_loupe", "responseBody", "size"],
    ]
    static let foreignFields: [[Step]] = [
        ["time"], ["timings", "blocked"], ["timings", "dns"], ["timings", "connect"], ["timings", "send"],
        ["timings", "wait"], ["timings", "receive"], ["response", "status"], ["response", "bodySize"],
        ["response", "content", "size"], ["request", "bodySize"],
    ]

    /// Imports `base` with `edits` (field index, number index, entry) applied; checks the rules above hold.
    static func check(_ base: Data, fields: [[Step]], edits: [(Int, Int, Int)]) throws {
        var object: Any = try document(base)
        for (field, number, entry) in edits {
            let value = extremes[number % extremes.count]
            set(value, at: ["log", "entries", .index(entry % 3)] + fields[field % fields.count], in: &object)
        }
        let exchanges: [TraceExchange]
        do {
            exchanges = try importing(object as! JSON)
        } catch {
            #expect(!error.message.isEmpty && !error.message.contains("\n"))
            return
        }
        for exchange in exchanges { expectSane(exchange, "\(edits)") }
        // What was imported exports, stores and reads back.
        let exported = try HARExporter().data(for: exchanges)
        #expect(try HARImporter().exchanges(from: exported).count == exchanges.count)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(exchanges)
        for summary in try store.recent(limit: 10) {
            #expect(summary.duration.map { (0...TraceTime.maxDuration).contains($0) } ?? true)
            _ = try store.exchange(id: summary.id).map { expectSane($0, "stored \(edits)") }
        }
    }

    static let edits = PropertyBased.zip(Gen.int(in: 0...99), Gen.int(in: 0...99), Gen.int(in: 0...2)).array(of: 1...5)

    @Test("extreme numbers anywhere in a Loupe HAR: refused in one line, or imported finite and in range")
    func extremeNumbersInLoupeHAR() async {
        await propertyCheck(count: 200, input: Self.edits) { edits in
            try Self.check(Self.loupeHAR, fields: Self.loupeFields, edits: edits)
        }
    }

    @Test("extreme numbers anywhere in another tool's HAR: imported finite and in range")
    func extremeNumbersInForeignHAR() async {
        await propertyCheck(count: 200, input: Self.edits) { edits in
            try Self.check(Self.chromeHAR, fields: Self.foreignFields, edits: edits)
        }
    }

    @Test("form fields are percent-encoded byte for byte, non-ASCII letters included")
    func formFieldsEncoded() throws {
        var object: Any = try Self.document(Self.chromeHAR)
        let params: [JSON] = [["name": "naïve café", "value": "Zoë & ü=1"], ["name": "a-b._~", "value": "日本"]]
        Self.set(["mimeType": "application/x-www-form-urlencoded", "params": params],
                 at: ["log", "entries", 0, "request", "postData"], in: &object)
        let exchange = try #require(try Self.importing(object as! JSON).first)
        let body = String(decoding: try #require(exchange.requestBody).data, as: UTF8.self)
        #expect(body == "na%C3%AFve%20caf%C3%A9=Zo%C3%AB%20%26%20%C3%BC%3D1&a-b._~=%E6%97%A5%E6%9C%AC")
        let ascii = body.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii)
    }
}
