import Foundation
import Loupe
import LoupeTrace

// `_loupe` as `JSONEncoder` with HARWriter's options encodes the exporter's `HARLoupeEntry`: times as seconds since
// 1970 on the microsecond grid, ids as upper-case UUID text, keys in sorted order, absent optionals left out.

extension HAREntryWriter {
    static func writeLoupe(_ exchange: TraceExchange, to out: HARBytes,
                           messageJSON: (@Sendable (TraceExchange, TraceMessage) -> String?)? = nil) throws {
        let loupe = out.open(openBrace)
        out.key("attempts")
        let attempts = out.open(openBracket)
        for attempt in exchange.attempts {
            out.element()
            try writeAttempt(attempt, to: out)
        }
        out.close(closeBracket, attempts)
        try out.member("endedAt", exchange.endedAt.map(time))
        out.member("error", exchange.error)
        out.key("events")
        try writeObjects(exchange.events, to: out) { event in
            try out.member("at", time(event.at))
            out.member("attributes", event.attributes)
            out.member("kind", event.kind.rawValue)
            out.member("message", event.message)
        }
        out.member("format", HARLoupeEntry.currentFormat)
        out.key("id")
        writeUUID(exchange.id, to: out)
        out.member("operation", exchange.operation)
        out.member("outcome", exchange.outcome.rawValue)
        if let replayOf = exchange.replayOf {
            out.key("replayOf")
            writeUUID(replayOf, to: out)
        }
        if let body = exchange.requestBody {
            out.key("requestBody")
            writeBodySize(body, to: out)
        }
        if let body = exchange.responseBody {
            out.key("responseBody")
            writeBodySize(body, to: out)
        }
        if let source = exchange.source {
            out.key("source")
            let object = out.open(openBrace)
            out.member("app", source.app)
            out.member("host", source.host)
            out.member("pid", source.pid)
            out.close(closeBrace, object)
        }
        try out.member("startedAt", time(exchange.startedAt))
        out.member("status", exchange.status)
        if let stream = exchange.stream {
            out.key("stream")
            try writeStream(stream, to: out, json: messageJSON.map { decode in { decode(exchange, $0) } })
        }
        out.close(closeBrace, loupe)
    }

    private static func writeAttempt(_ attempt: TraceAttempt, to out: HARBytes) throws {
        let object = out.open(openBrace)
        out.member("circuitState", attempt.circuitState)
        try out.member("endedAt", attempt.endedAt.map(time))
        out.member("error", attempt.error)
        try out.member("firstByteAt", attempt.firstByteAt.map(time))
        if !attempt.notes.isEmpty { out.member("notes", attempt.notes) }
        out.member("number", attempt.number)
        try out.member("requestSentAt", attempt.requestSentAt.map(time))
        try out.member("retryDelay", attempt.retryDelay)
        out.member("retryReason", attempt.retryReason)
        try out.member("startedAt", time(attempt.startedAt))
        out.member("status", attempt.status)
        out.close(closeBrace, object)
    }

    private static func writeBodySize(_ body: TraceBody, to out: HARBytes) {
        let object = out.open(openBrace)
        out.member("size", body.size)
        out.member("truncated", body.isTruncated)
        out.close(closeBrace, object)
    }

    // MARK: Times

    /// `date` on the microsecond grid, as ``HARImporter/onMicrosecondGrid(_:)`` puts an exchange before export.
    static func grid(_ date: Date) -> Date {
        Date(timeIntervalSince1970: HARWriter.microseconds(date.timeIntervalSince1970))
    }

    static func gridded(_ attempt: TraceAttempt) -> TraceAttempt {
        var attempt = attempt
        attempt.startedAt = grid(attempt.startedAt)
        attempt.requestSentAt = attempt.requestSentAt.map(grid)
        attempt.firstByteAt = attempt.firstByteAt.map(grid)
        attempt.endedAt = attempt.endedAt.map(grid)
        return attempt
    }

    /// A `_loupe` time: the gridded date's seconds since 1970, rounded to the microsecond again (as the encoder's
    /// date strategy rounds the gridded date).
    static func time(_ date: Date) -> Double {
        HARWriter.microseconds(grid(date).timeIntervalSince1970)
    }

    /// `startedDateTime`: ``HARDate/string(from:)``'s text, `YYYY-MM-DDThh:mm:ss.mmmZ`.
    static func writeDate(_ date: Date, to out: HARBytes) {
        let fields = HARDate.utcFields(of: date)
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes on the stack for the 24 characters
        withUnsafeMutableBytes(of: &text) { raw in
            var index = 0
            func digits(_ value: Int, _ width: Int) {
                // `pad` writes more digits than the width when the value needs them: years stay within 0...9999.
                var value = value
                for position in stride(from: index + width - 1, through: index, by: -1) {
                    raw[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                index += width
            }
            func mark(_ character: Unicode.Scalar) {
                raw[index] = UInt8(ascii: character)
                index += 1
            }
            digits(fields.year, 4); mark("-"); digits(fields.month, 2); mark("-"); digits(fields.day, 2); mark("T")
            digits(fields.hour, 2); mark(":"); digits(fields.minute, 2); mark(":"); digits(fields.second, 2)
            mark("."); digits(fields.millisecond, 3); mark("Z")
            out.string(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[..<index]))
        }
    }

    /// `uuidString`'s text (upper-case hexadecimal, 8-4-4-4-12), quoted.
    static func writeUUID(_ id: UUID, to out: HARBytes) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
            out.string(UnsafeBufferPointer(rebasing: text[..<StoredUUID.format(id, into: text)]))
        }
    }
}
