import Foundation
import Loupe
import Synchronization

extension TraceExchange {
    /// What this exchange counts for against ``TraceStoreBounds/maxBytes``: an estimate, from below, of the space
    /// it takes in a SQLite store.
    ///
    /// The recorded text and bytes (id, URL, operation, method, error, replay link, `Name: value` for every
    /// header field, stored body bytes, attempt and event texts) plus a fixed allowance for the numbers, row
    /// headers and index entries around them: ``rowAllowance`` per exchange, ``childRowAllowance`` per attempt
    /// and per event. Every counted byte is really in the file, which holds more (JSON punctuation, B-tree slack),
    /// so its used pages never number fewer than the store's counted bytes; measured on a million small
    /// exchanges, the file was about 1.5 times the count.
    public var storedByteCount: Int {
        func count(_ text: String?) -> Int { text?.utf8.count ?? 0 }
        var bytes = Self.rowAllowance + 36 + count(url) + count(operation) + count(method) + count(error)
            + (replayOf == nil ? 0 : 36)
        // Each list on its own: `requestHeaders + responseHeaders` built a third list for every exchange stored.
        for header in requestHeaders { bytes += count(header.name) + count(header.value) + 4 }
        for header in responseHeaders { bytes += count(header.name) + count(header.value) + 4 }
        bytes += (requestBody?.data.count ?? 0) + (responseBody?.data.count ?? 0)
        if let beforeRule {
            bytes += count(beforeRule.url) + (beforeRule.body?.data.count ?? 0) * 4 / 3 + 64
            for header in beforeRule.headers { bytes += count(header.name) + count(header.value) + 4 }
        }
        for attempt in attempts {
            bytes += Self.childRowAllowance + count(attempt.error) + count(attempt.circuitState) + count(attempt.retryReason)
                + attempt.notes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        }
        for event in events {
            bytes += Self.childRowAllowance + count(event.kind.rawValue) + count(event.message)
            for (key, value) in event.attributes { bytes += count(key) + count(value) }
        }
        for message in stream?.messages ?? [] {
            bytes += Self.childRowAllowance + count(message.type) + count(message.eventID) + message.payload.count
        }
        return bytes
    }

    /// Bytes allowed per exchange for its numeric columns, record header and entries in the nine indexes on it.
    public static let rowAllowance = 200
    /// Bytes allowed per attempt or event row for its numbers, record header and index entries.
    public static let childRowAllowance = 40
}

/// Decides how many of the oldest exchanges go, for stores that hold them in order (``InMemoryTraceStore``);
/// ``SQLiteTraceStore`` makes the same decisions with indexed SQL.
package enum PrunePlanner {
    package struct Item {
        package var storedAt: Date
        package var bytes: Int

        package init(storedAt: Date, bytes: Int) {
            self.storedAt = storedAt
            self.bytes = bytes
        }
    }

    /// The number of leading (oldest) items to remove, and why: first those older than the age limit (stopping
    /// at the first young one), then enough for the count, then enough for the bytes.
    package static func plan(_ items: [Item], bounds: TraceStoreBounds, now: Date) -> (cut: Int, reasons: [PruneResult.Reason]) {
        var cut = 0
        var reasons: [PruneResult.Reason] = []
        if let maxAge = bounds.maxAge {
            let cutoff = now.timeIntervalSince1970 - maxAge
            while cut < items.count, items[cut].storedAt.timeIntervalSince1970 < cutoff { cut += 1 }
            if cut > 0 { reasons.append(.age) }
        }
        if let maxCount = bounds.maxCount, items.count - cut > max(0, maxCount) {
            cut = items.count - max(0, maxCount)
            reasons.append(.count)
        }
        if let maxBytes = bounds.maxBytes {
            var total = items[cut...].reduce(0) { $0 + $1.bytes }
            if total > maxBytes { reasons.append(.bytes) }
            while total > maxBytes, cut < items.count {
                total -= items[cut].bytes
                cut += 1
            }
        }
        return (cut, reasons)
    }
}

/// Counts exchanges and bytes written, says when an automatic prune is due, and remembers what automatic prunes
/// removed.
///
/// Due after `interval` exchanges, or after a sixteenth of the store's size bound in bytes (``TraceStoreBounds/
/// maxBytes``, as the last prune read it), whichever comes first: by count alone, a store bounded to 20 MiB reached
/// 155 MiB from 65 exchanges of 1–3 MiB (issue 44). So a writer stays within its bound plus a sixteenth, plus what
/// one write holds.
final class AutoPruner: Sendable {
    let interval: Int
    private let written = Mutex((count: 0, bytes: 0))
    /// Bytes written between prunes: a sixteenth of the size bound, `Int.max` without one.
    private let byteInterval = Mutex(Int.max)
    private let last = Mutex<PruneResult?>(nil)
    private let total = Mutex<PruneNotice?>(nil)

    init(interval: Int) {
        self.interval = max(1, interval)
    }

    /// The smallest byte interval: a tiny bound is not pruned after every exchange.
    static let minimumByteInterval = 64 << 10

    /// Records `count` writes of `bytes` (their ``TraceExchange/storedByteCount``); true once every `interval`
    /// exchanges or byte interval.
    func isDue(afterWriting count: Int, bytes: Int) -> Bool {
        let byteInterval = byteInterval.withLock { $0 }
        return written.withLock { written in
            written.count += count
            written.bytes = written.bytes > Int.max - bytes ? Int.max : written.bytes + bytes
            guard written.count >= interval || written.bytes >= byteInterval else { return false }
            written = (0, 0)
            return true
        }
    }

    /// The store's bounds as a prune read them: they set the byte interval.
    func note(_ bounds: TraceStoreBounds) {
        let interval = bounds.maxBytes.map { max(Self.minimumByteInterval, $0 / 16) } ?? Int.max
        byteInterval.withLock { $0 = interval }
    }

    /// Whether a byte count is worth making for ``isDue(afterWriting:bytes:)``: not for a store without a size bound.
    var countsBytes: Bool { byteInterval.withLock { $0 } != Int.max }

    /// Notes an automatic prune that removed something.
    func record(_ result: PruneResult, notice: PruneNotice) {
        last.withLock { $0 = result }
        total.withLock { $0 = $0.map { $0.merged(with: notice) } ?? notice }
    }

    /// The result of the last automatic prune that removed something.
    var lastResult: PruneResult? { last.withLock { $0 } }
    /// Everything automatic prunes removed since the store opened.
    var totalNotice: PruneNotice? { total.withLock { $0 } }
}
