import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// What a request must be for a rule to possibly match it: the operations and methods its filter allows.
///
/// A necessary condition, never a sufficient one: when a filter matches a request, the request's operation is in
/// `operations` and its method in `methods` (`nil` is any). `never` is a filter no request can match (one made only
/// of response terms such as `~c 5xx`). Derived from the filter's shape: `&` intersects, `|` unites, `!` allows
/// anything, since the complement of a set of names is no set we keep.
struct RulePrecheck: Sendable {
    /// Lists, not sets: a `Set` would keep one of two canonically equal spellings, and filters compare bytes.
    var operations: [String]?
    var methods: [String]?
    var never = false

    static let any = RulePrecheck()
    static let none = RulePrecheck(never: true)

    init(operations: [String]? = nil, methods: [String]? = nil, never: Bool = false) {
        self.operations = operations
        self.methods = methods
        self.never = never
        if operations?.isEmpty == true || methods?.isEmpty == true { self.never = true }
    }

    /// The precheck of `filter`. Walks `&` and `|` chains with a loop, so an accepted filter of 500 terms recurses
    /// only as deep as its brackets.
    init(_ filter: TraceFilter) {
        switch filter {
        case .operation(let name): self.init(operations: [name])
        case .method(let method): self.init(methods: [method])
        case .host, .url, .header, .body, .requestBody, .attempts, .not: self = .any
        case .status, .duration, .circuit, .error, .replay, .served, .source, .rule, .grpc, .responseBody, .message, .errorText,
             .drift, .exchanges, .since, .until: self = .none
        case .and:
            var result = RulePrecheck.any
            for operand in Self.chain(filter, and: true) { result = result.and(RulePrecheck(operand)) }
            self = result
        case .or:
            var result = RulePrecheck.none
            for operand in Self.chain(filter, and: false) { result = result.or(RulePrecheck(operand)) }
            self = result
        }
    }

    func and(_ other: RulePrecheck) -> RulePrecheck {
        if never || other.never { return .none }
        return RulePrecheck(operations: Self.intersect(operations, other.operations),
                            methods: Self.intersect(methods, other.methods))
    }

    func or(_ other: RulePrecheck) -> RulePrecheck {
        if never { return other }
        if other.never { return self }
        return RulePrecheck(operations: Self.unite(operations, other.operations), methods: Self.unite(methods, other.methods))
    }

    private static func intersect(_ a: [String]?, _ b: [String]?) -> [String]? {
        guard let a else { return b }
        guard let b else { return a }
        return a.filter { name in b.contains { RuleText.same($0, name) } }
    }

    private static func unite(_ a: [String]?, _ b: [String]?) -> [String]? {
        guard let a, let b else { return nil }
        return a + b.filter { name in !a.contains { RuleText.same($0, name) } }
    }

    /// The operands of the `&` (or `|`) chain `filter` heads, left to right.
    static func chain(_ filter: TraceFilter, and: Bool) -> [TraceFilter] {
        var result: [TraceFilter] = []
        var pending = [filter]
        while let next = pending.popLast() {
            switch next {
            case .and(let left, let right) where and, .or(let left, let right) where !and: pending += [right, left]
            default: result.append(next)
            }
        }
        return result
    }

    /// Whether a request of this operation and method passes (a rule that fails it cannot match).
    func admits(operation: String, method: String) -> Bool {
        if never { return false }
        if let operations, !operations.contains(where: { RuleText.same($0, operation) }) { return false }
        if let methods, !methods.contains(where: { RuleText.same($0, method) }) { return false }
        return true
    }
}

/// A rule's filter compiled for requests: response terms folded to false, `&`/`|` chains flattened, texts kept as
/// bytes. Matches exactly as ``RuleSubject/matches(_:)`` does (`RuleIndexTests` compares them on random filters and
/// requests), but reads a ``RequestFacts`` that builds the URL, header lines and body text only when asked.
indirect enum RuleTest: Sendable {
    case constant(Bool)
    case method(String)
    case operation(String)
    /// The needle's bytes (the parser lower-cased them).
    case host([UInt8])
    case url(TextPattern)
    case header(TextPattern)
    case body(TextPattern)
    case attempts(TraceFilter.Comparison<Int>)
    case not(RuleTest)
    case all([RuleTest])
    case any([RuleTest])

    init(_ filter: TraceFilter) {
        switch filter {
        case .method(let method): self = .method(method)
        case .operation(let name): self = .operation(name)
        case .host(let host): self = .host(Array(host.utf8))
        case .url(let pattern): self = .url(pattern)
        case .header(let pattern): self = .header(pattern)
        case .body(let pattern), .requestBody(let pattern): self = .body(pattern)
        case .attempts(let comparison): self = .attempts(comparison)
        // A request has no response yet: `~bs` never matches one, as `~c` does not.
        case .status, .duration, .circuit, .error, .replay, .served, .source, .rule, .grpc, .responseBody, .message, .errorText,
             .drift, .exchanges, .since, .until: self = .constant(false)
        case .not(let inner):
            let test = RuleTest(inner)
            if case .constant(let value) = test { self = .constant(!value) } else { self = .not(test) }
        case .and:
            var tests: [RuleTest] = []
            for operand in RulePrecheck.chain(filter, and: true) {
                switch RuleTest(operand) {
                case .constant(true): continue
                case .constant(false): self = .constant(false); return
                case let test: tests.append(test)
                }
            }
            self = tests.count == 1 ? tests[0] : tests.isEmpty ? .constant(true) : .all(tests)
        case .or:
            var tests: [RuleTest] = []
            for operand in RulePrecheck.chain(filter, and: false) {
                switch RuleTest(operand) {
                case .constant(false): continue
                case .constant(true): self = .constant(true); return
                case let test: tests.append(test)
                }
            }
            self = tests.count == 1 ? tests[0] : tests.isEmpty ? .constant(false) : .any(tests)
        }
    }

    /// Whether a `~att` term is anywhere in the test (only then is the attempt count read for a request).
    var readsAttempt: Bool {
        switch self {
        case .attempts: true
        case .constant, .method, .operation, .host, .url, .header, .body: false
        case .not(let inner): inner.readsAttempt
        case .all(let tests), .any(let tests): tests.contains { $0.readsAttempt }
        }
    }

    func matches(_ facts: inout RequestFacts) -> Bool {
        switch self {
        case .constant(let value): return value
        case .method(let method): return RuleText.same(facts.request.method.rawValue, method)
        case .operation(let name): return RuleText.same(facts.operation, name)
        case .host(let needle): return facts.hostContains(needle)
        case .url(let pattern): return pattern.matches(facts.url)
        case .header(let pattern): return pattern.matches(facts.headerLines)
        case .body(let pattern): return facts.bodyText.map { pattern.matches($0) } ?? false
        case .attempts(let comparison): return comparison.holds(for: facts.attempt)
        case .not(let inner): return !inner.matches(&facts)
        case .all(let tests):
            for test in tests where !test.matches(&facts) { return false }
            return true
        case .any(let tests):
            for test in tests where test.matches(&facts) { return true }
            return false
        }
    }
}

/// One request as the index reads it: the cheap fields at hand, the texts built on first use and kept.
struct RequestFacts {
    let request: HTTPRequest
    let operation: String
    let body: Data?
    /// The attempt's number; read from the context only when some rule has `~att` (it takes the tracker's lock).
    let attempt: Int
    private var builtURL: String?
    private var builtHeaderLines: String?
    private var builtBodyText: String??

    init(request: HTTPRequest, operation: String, body: Data?, attempt: Int) {
        self.request = request
        self.operation = operation
        self.body = body
        self.attempt = attempt
    }

    init(_ subject: RuleSubject) {
        self.init(request: subject.request, operation: subject.operation, body: subject.body, attempt: subject.attempt)
    }

    var url: String {
        mutating get {
            if let builtURL { return builtURL }
            let url = RuleSubject.url(of: request)
            builtURL = url
            return url
        }
    }

    var headerLines: String {
        mutating get {
            if let builtHeaderLines { return builtHeaderLines }
            let lines = FilterText.headerLines(request.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) })
            builtHeaderLines = lines
            return lines
        }
    }

    var bodyText: String? {
        mutating get {
            if let builtBodyText { return builtBodyText }
            let text = body.map(FilterText.bodyText)
            builtBodyText = .some(text)
            return text
        }
    }

    /// Whether the host (the authority without its port; inside `[…]` for IPv6) contains `needle`, ignoring ASCII
    /// case, as `~d` means. Scans the authority's bytes in place; an authority with non-ASCII bytes takes
    /// ``RuleSubject``'s way (Characters), so the answer is the same for every input.
    func hostContains(_ needle: [UInt8]) -> Bool {
        let authority = request.authority ?? ""
        let scanned: Bool?? = authority.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            var start = 0
            var end = bytes.count
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte >= 0x80 { return nil }
                if end == bytes.count {
                    if bytes[0] == UInt8(ascii: "[") {
                        if byte == UInt8(ascii: "]") { end = index }
                    } else if byte == UInt8(ascii: ":") {
                        end = index
                    }
                }
            }
            if bytes.first == UInt8(ascii: "[") { start = 1 }
            return RuleText.containsLowercased(bytes[start..<max(start, end)], needle)
        }
        if case .some(.some(let answer)) = scanned { return answer }
        let host = RuleSubject.host(of: request)
        return FilterText.containsBytes(FilterText.asciiLowercased(host), String(decoding: needle, as: UTF8.self))
    }
}

/// Byte comparisons without copies, for the request path.
enum RuleText {
    /// Exact equality of the UTF-8 bytes, as ``FilterText/sameBytes(_:_:)``.
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Native and small strings lend their bytes; comparing buffers avoids the generic element loop.
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
        }
        if case .some(.some(let equal)) = fast { return equal }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `needle` occurs in `haystack` with the haystack's ASCII letters lower-cased.
    static func containsLowercased(_ haystack: Slice<UnsafeBufferPointer<UInt8>>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
        var start = haystack.startIndex
        while start <= haystack.endIndex - needle.count {
            var offset = 0
            while offset < needle.count, lower(haystack[start + offset]) == needle[offset] { offset += 1 }
            if offset == needle.count { return true }
            start += 1
        }
        return false
    }
}

/// The rules that may act on a request, compiled, as one immutable value the transport reads without the book's
/// lock: enabled, not a breaker, not spent. It answers "which of them match?" with their positions in the book it
/// was made from; the book then applies limits, probability, order and hits under its lock to those rules only,
/// so a request that no rule matches costs a lookup and a few byte comparisons, and one that a rule matches never
/// runs the reference matcher over every rule. Each mock and fault also has its answer built here once
/// (``PreparedAnswer``): the event's text and, for a mock, the response.
final class RuleIndex: Sendable {
    struct Entry: Sendable {
        let precheck: RulePrecheck
        let test: RuleTest
        /// The rule's position in the book's entries this index was made from.
        let position: Int
    }

    /// Rules that allow only some operations, by each operation they allow (a rule may sit under several).
    let byOperation: [String: [Entry]]
    /// Rules that allow any operation.
    let anyOperation: [Entry]
    /// How many rules are indexed (a rule under several operations counts once).
    let count: Int
    /// Whether any rule reads `~att`.
    let readsAttempt: Bool
    /// Whether any live rule has an `until` (only then is the wall clock read for a request).
    let readsClock: Bool
    /// How many live rules it was made from.
    let live: Int
    /// The book's generation it was made from: positions mean something only in that book.
    let generation: Int
    /// The answers of the mocks and faults, by position.
    let answers: [Int: PreparedAnswer]

    static let empty = RuleIndex([])

    /// The index of `entries`' live request rules.
    convenience init(_ entries: [RuleBookState.Entry], generation: Int = 0) {
        var live: [(Int, TraceFilter)] = []
        var answers: [Int: PreparedAnswer] = [:]
        var readsClock = false
        for (position, entry) in entries.enumerated() where entry.isLive {
            live.append((position, entry.rule.filter))
            readsClock = readsClock || entry.rule.limits.until != nil
            switch entry.rule.action {
            case .mock(let mock): answers[position] = .mock(entry.rule.name, mock)
            case .fault(let fault): answers[position] = .fault(entry.rule.name, fault)
            case .rewrite, .breakpoint, .breaker: break
            }
        }
        self.init(positioned: live, readsClock: readsClock, generation: generation, answers: answers)
    }

    /// An index of `filters` alone, each at its position in the array.
    convenience init(filters: [TraceFilter]) {
        self.init(positioned: Array(filters.enumerated()), readsClock: false, generation: 0, answers: [:])
    }

    private init(positioned filters: [(Int, TraceFilter)], readsClock: Bool, generation: Int, answers: [Int: PreparedAnswer]) {
        var byOperation: [String: [Entry]] = [:]
        var anyOperation: [Entry] = []
        var count = 0
        var readsAttempt = false
        for (position, filter) in filters {
            let precheck = RulePrecheck(filter)
            let test = RuleTest(filter)
            if precheck.never { continue }
            if case .constant(false) = test { continue }
            count += 1
            readsAttempt = readsAttempt || test.readsAttempt
            let entry = Entry(precheck: precheck, test: test, position: position)
            if let operations = precheck.operations {
                // Under each key once: two spellings of one name that are canonically equal share a key.
                var keys: Set<String> = []
                for operation in operations where keys.insert(operation).inserted {
                    byOperation[operation, default: []].append(entry)
                }
            } else {
                anyOperation.append(entry)
            }
        }
        self.byOperation = byOperation
        self.anyOperation = anyOperation
        self.count = count
        self.readsAttempt = readsAttempt
        self.readsClock = readsClock
        self.live = filters.count
        self.generation = generation
        self.answers = answers
    }

    /// Whether some indexed rule matches the request (its limits and probability aside).
    func mayMatch(_ facts: inout RequestFacts) -> Bool {
        !matching(&facts, first: true).isEmpty
    }

    /// The positions of the indexed rules that match the request (limits and probability aside), in book order.
    func matching(_ facts: inout RequestFacts) -> RulePositions {
        matching(&facts, first: false)
    }

    private func matching(_ facts: inout RequestFacts, first: Bool) -> RulePositions {
        var positions = RulePositions()
        if count == 0 { return positions }
        let method = facts.request.method.rawValue
        for entry in anyOperation where entry.precheck.admits(operation: facts.operation, method: method) {
            if entry.test.matches(&facts) {
                positions.append(entry.position)
                if first { return positions }
            }
        }
        // A dictionary finds names canonically equal; the precheck and test then compare bytes.
        guard !byOperation.isEmpty, let keyed = byOperation[facts.operation] else { return positions }
        let unkeyed = positions.count
        for entry in keyed where entry.precheck.admits(operation: facts.operation, method: method) {
            if entry.test.matches(&facts) {
                positions.append(entry.position)
                if first { return positions }
            }
        }
        // Both runs are in book order and a rule sits in one of them only: sorting merges them.
        if unkeyed > 0, unkeyed < positions.count { positions.sort() }
        return positions
    }
}

/// Positions in the book, in order: the first kept inline, so the usual request that one rule matches allocates
/// nothing.
struct RulePositions: Sequence, Equatable {
    private var first = -1
    private var more: [Int] = []

    var isEmpty: Bool { first < 0 }
    var count: Int { isEmpty ? 0 : 1 + more.count }

    mutating func append(_ position: Int) {
        if first < 0 { first = position } else { more.append(position) }
    }

    mutating func sort() {
        let all = ([first] + more).sorted()
        first = all[0]
        more = Array(all.dropFirst())
    }

    struct Iterator: IteratorProtocol {
        let positions: RulePositions
        var offset = -1

        mutating func next() -> Int? {
            defer { offset += 1 }
            if offset == -1 { return positions.first < 0 ? nil : positions.first }
            return offset < positions.more.count ? positions.more[offset] : nil
        }
    }

    func makeIterator() -> Iterator { Iterator(positions: self) }
}

/// What a matching mock or fault records, and a mock's response: built once per rule when the book changes, not
/// on every request it answers. The one place these events are worded.
struct PreparedAnswer: Sendable {
    let message: String
    let attributes: [String: String]
    /// The mock's response; `nil` for a fault.
    let response: RawResponse?

    static func mock(_ name: String, _ mock: RuleMock) -> PreparedAnswer {
        var attributes = ["rule": name, "action": "mock", "mocked": "true", "status": "\(mock.status)"]
        if let recorded = mock.recordedFrom { attributes["from"] = "#\(recorded)" }
        return PreparedAnswer(
            message: "rule \(name): mocked response \(mock.status)"
                + (mock.recordedFrom.map { " (recorded #\($0))" } ?? "") + ", not from the server",
            attributes: attributes, response: mock.response)
    }

    static func fault(_ name: String, _ fault: TransportFault) -> PreparedAnswer {
        var attributes = ["rule": name, "action": "fault", "fault": fault.description]
        if case .status = fault { attributes["mocked"] = "true" }
        return PreparedAnswer(message: "rule \(name): fault, \(fault)", attributes: attributes, response: nil)
    }
}

extension RuleBookState.Entry {
    /// Enabled, acting on requests, and not spent: a rule that may still fire.
    var isLive: Bool {
        guard rule.limits.enabled, !rule.action.isBreaker else { return false }
        if let times = rule.limits.times, hits >= times { return false }
        return true
    }
}
