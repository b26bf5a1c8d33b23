import Foundation

/// Replaces every occurrence of any of a set of byte strings with a marker, in one pass over the text.
///
/// An Aho–Corasick automaton: building it costs the total length of the needles, and scrubbing a text costs its
/// length whatever the number of needles, so a 1 MiB body is read once however many secrets an exchange has.
/// Overlapping matches are merged into one replaced range. Nothing is copied unless something matches.
/// Works on bytes, so bodies that are not UTF-8 are scrubbed too; needles are whole UTF-8 strings, so a match in
/// valid UTF-8 text always starts and ends on character boundaries.
package struct ValueScrubber: Sendable {
    /// The automaton in one array, read through one pointer while scanning (six arrays were six retains on every
    /// copy and a bounds check on every read): first the root's transitions, dense (`256` entries,
    /// −1: none; the root is node 0), then ``stride`` values per node in breadth-first order (every node's children
    /// are contiguous and sorted by byte): its byte, first child, child count, failure link, and the length of the
    /// longest needle ending there (directly or through its failure links; 0 for none).
    private let tables: [Int32]
    /// The shortest needle's length: a shorter text cannot hold one, and is not scanned.
    private let shortest: Int

    private static let stride = 5
    private static let byteField = 0, firstChildField = 1, childCountField = 2, failField = 3, longestField = 4

    /// A scrubber for the given secret values in all their forms (see ``SecretForms``); `nil` when there are none.
    package init?(values: some Sequence<String>, minimumLength: Int) {
        self.init(needles: SecretForms.needles(for: values, minimumLength: minimumLength))
    }

    /// A scrubber for exactly these byte strings; `nil` when there are none.
    package init?(needles: [[UInt8]]) {
        let needles = needles.filter { !$0.isEmpty }.sorted { $0.lexicographicallyPrecedes($1) }
        guard !needles.isEmpty else { return nil }
        shortest = needles.map(\.count).min() ?? 1
        var byte: [UInt8] = [0], firstChild: [Int32] = [0], childCount: [Int32] = [0], terminal: [Int32] = [0]
        // Level by level: at depth d the needles, still sorted, share a node exactly when they share a prefix of
        // length d + 1, and consecutive needles with one parent get consecutive children.
        var node = [Int32](repeating: 0, count: needles.count)
        let depth = needles.map(\.count).max() ?? 0
        for level in 0..<depth {
            var previous: (parent: Int32, byte: UInt8)?
            for (index, needle) in needles.enumerated() where needle.count > level {
                let parent = node[index], value = needle[level]
                if let previous, previous.parent == parent, previous.byte == value {
                    node[index] = Int32(byte.count - 1)
                } else {
                    let child = Int32(byte.count)
                    if childCount[Int(parent)] == 0 { firstChild[Int(parent)] = child }
                    childCount[Int(parent)] += 1
                    byte.append(value)
                    firstChild.append(0)
                    childCount.append(0)
                    terminal.append(0)
                    node[index] = child
                    previous = (parent, value)
                }
                if needle.count == level + 1 { terminal[Int(node[index])] = Int32(needle.count) }
            }
        }
        var rootNext = [Int32](repeating: -1, count: 256)
        for child in firstChild[0]..<(firstChild[0] + childCount[0]) { rootNext[Int(byte[Int(child)])] = child }
        // Failure links in breadth-first order, which is node order.
        var fail = [Int32](repeating: 0, count: byte.count)
        var longest = terminal
        for parent in 0..<byte.count where childCount[parent] > 0 {
            for child in Int(firstChild[parent])..<Int(firstChild[parent] + childCount[parent]) {
                var target: Int32 = 0
                if parent != 0 {
                    var state = fail[parent]
                    while true {
                        if let next = Self.step(state, byte[child], rootNext, byte, firstChild, childCount) {
                            target = next
                            break
                        }
                        if state == 0 { break }
                        state = fail[Int(state)]
                    }
                }
                fail[child] = target
                longest[child] = max(terminal[child], longest[Int(target)])
            }
        }
        var tables = rootNext
        tables.reserveCapacity(256 + Self.stride * byte.count)
        for node in byte.indices {
            tables.append(contentsOf: [Int32(byte[node]), firstChild[node], childCount[node], fail[node], longest[node]])
        }
        self.tables = tables
    }

    /// The text with every match replaced by `marker`, or `nil` when nothing matched.
    package func scrub(_ bytes: UnsafeBufferPointer<UInt8>, marker: [UInt8]) -> [UInt8]? {
        guard bytes.count >= shortest else { return nil }
        return tables.withUnsafeBufferPointer { Self.scan(bytes, marker: marker, tables: $0) }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, marker: [UInt8],
                             tables: UnsafeBufferPointer<Int32>) -> [UInt8]? {
        var output: [UInt8]?
        var copied = 0
        var pending: (start: Int, end: Int)?
        var state: Int32 = 0
        func emit(_ range: (start: Int, end: Int)) {
            if output == nil { output = []; output!.reserveCapacity(bytes.count) }
            output!.append(contentsOf: bytes[copied..<range.start])
            output!.append(contentsOf: marker)
            copied = range.end
        }
        for index in 0..<bytes.count {
            let value = bytes[index]
            // Most bytes of most texts start no needle: stay at the root without a call.
            if state == 0 {
                let next = tables[Int(value)]
                guard next >= 0 else { continue }
                state = next
            } else {
                while true {
                    if let next = step(state, value, tables) {
                        state = next
                        break
                    }
                    if state == 0 { break }
                    state = tables[field(state, failField)]
                }
            }
            let length = Int(tables[field(state, longestField)])
            guard length > 0 else { continue }
            // Ends only grow; a match may start before the pending range (a longer needle), never before `copied`.
            let match = (start: max(index + 1 - length, copied), end: index + 1)
            if let current = pending, match.start <= current.end {
                pending = (min(current.start, match.start), match.end)
            } else {
                if let current = pending { emit(current) }
                pending = match
            }
        }
        if let current = pending { emit(current) }
        guard var output else { return nil }
        output.append(contentsOf: bytes[copied..<bytes.count])
        return output
    }

    /// Where a node's field is in ``tables``.
    private static func field(_ node: Int32, _ field: Int) -> Int {
        256 + stride * Int(node) + field
    }

    /// The node reached from `state` by `value`, or `nil` (then the failure link is followed).
    private static func step(_ state: Int32, _ value: UInt8, _ tables: UnsafeBufferPointer<Int32>) -> Int32? {
        if state == 0 {
            let next = tables[Int(value)]
            return next < 0 ? nil : next
        }
        let start = Int(tables[field(state, firstChildField)])
        let end = start + Int(tables[field(state, childCountField)])
        for child in start..<end where tables[field(Int32(child), byteField)] == Int32(value) { return Int32(child) }
        return nil
    }

    /// `data` scrubbed, or `nil` when nothing matched.
    package func scrub(_ data: Data, marker: String) -> Data? {
        scrub(data, markerBytes: Self.bytes(of: marker))
    }

    /// `data` with matches replaced by ``RedactionPolicy/marker``, or `nil` when nothing matched.
    package func scrub(_ data: Data) -> Data? {
        scrub(data, markerBytes: Self.markerBytes)
    }

    private func scrub(_ data: Data, markerBytes: [UInt8]) -> Data? {
        guard data.count >= shortest else { return nil }
        return data.withUnsafeBytes { raw in
            scrub(raw.bindMemory(to: UInt8.self), marker: markerBytes).map { Data($0) }
        }
    }

    /// `text` scrubbed (the same string when nothing matched).
    package func scrub(_ text: String, marker: String) -> String {
        scrub(text, markerBytes: Self.bytes(of: marker))
    }

    /// `text` with matches replaced by ``RedactionPolicy/marker`` (the same string when nothing matched): the
    /// recorder scrubs every text of every exchange with it, and naming the marker cost a string comparison each.
    package func scrub(_ text: String) -> String {
        scrub(text, markerBytes: Self.markerBytes)
    }

    /// `text` with matches replaced by ``RedactionPolicy/urlMarker``: the exchange's URL, scrubbed without naming
    /// the marker (compared as a string on each call, which cost more than the scan once the call was no longer
    /// inlined).
    package func scrubURL(_ text: String) -> String {
        scrub(text, markerBytes: Self.urlMarkerBytes)
    }

    private func scrub(_ text: String, markerBytes: [UInt8]) -> String {
        // A text shorter than every needle is returned before its bytes are looked at.
        guard text.utf8.count >= shortest else { return text }
        var text = text
        let scrubbed = text.withUTF8 { scrub($0, marker: markerBytes) }
        return scrubbed.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// The two markers' bytes, made once: the recorder scrubs every text of every exchange (its URL, headers, notes,
    /// event messages), and an array made per call was an allocation each time.
    private static let markerBytes = Array(RedactionPolicy.marker.utf8)
    private static let urlMarkerBytes = Array(RedactionPolicy.urlMarker.utf8)

    private static func bytes(of marker: String) -> [UInt8] {
        if marker == RedactionPolicy.marker { return markerBytes }
        if marker == RedactionPolicy.urlMarker { return urlMarkerBytes }
        return Array(marker.utf8)
    }

    private static func step(_ state: Int32, _ value: UInt8, _ rootNext: [Int32], _ byte: [UInt8],
                             _ firstChild: [Int32], _ childCount: [Int32]) -> Int32? {
        if state == 0 {
            let next = rootNext[Int(value)]
            return next < 0 ? nil : next
        }
        let start = Int(firstChild[Int(state)]), end = start + Int(childCount[Int(state)])
        for child in start..<end where byte[child] == value { return Int32(child) }
        return nil
    }
}
