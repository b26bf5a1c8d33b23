import Foundation
import LoupeTrace

/// The W3C ids an exchange's spans are sent with: stable across exports, and the ones its requests carried.
///
/// The trace id is the recorded `traceparent`'s when the exchange has one, so the spans join the server's own
/// trace; otherwise the exchange id's 16 bytes, which is also the trace id Loupe's fallback `traceparent` sends
/// (`TracingMiddleware`). Span ids follow that fallback too: the exchange id's low 64 bits for the exchange span,
/// plus the attempt number for each attempt's, so a server that logged the fallback's parent id finds its span. A
/// recorded span id that is none of these (a tracer's own) goes to the last attempt, the one whose request
/// carried it (the recorded headers are the last attempt's). Re-exporting a store sends the same ids again, which
/// a backend folds into the same spans rather than doubling them.
struct OTLPSpanIDs: Equatable {
    /// 16 bytes.
    var traceID: [UInt8]
    /// 8 bytes: the exchange span's id.
    var exchangeSpanID: [UInt8]
    /// 8 bytes each, by attempt number.
    var attemptSpanIDs: [Int: [UInt8]]

    init(_ exchange: TraceExchange) {
        let uuid = withUnsafeBytes(of: exchange.id.uuid) { Array($0) }
        let low = uuid[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        func derived(_ offset: Int) -> [UInt8] {
            var id = low &+ UInt64(truncatingIfNeeded: offset)
            if id == 0 { id = 1 }  // W3C forbids an all-zero span id, as the fallback does
            return Self.bigEndian(id)
        }
        let recorded = exchange.traceContext
        traceID = recorded.flatMap { Self.bytes(hex: $0.traceID) } ?? uuid
        exchangeSpanID = derived(0)
        var attempts: [Int: [UInt8]] = [:]
        for attempt in exchange.attempts { attempts[attempt.number] = derived(attempt.number) }
        if let spanID = recorded.flatMap({ Self.bytes(hex: $0.spanID) }),
           spanID != exchangeSpanID, !attempts.values.contains(spanID) {
            if let last = exchange.attempts.map(\.number).max() {
                attempts[last] = spanID
            } else {
                exchangeSpanID = spanID
            }
        }
        attemptSpanIDs = attempts
    }

    /// The id of `role`'s span.
    func spanID(_ role: RecordedSpan.Role) -> [UInt8] {
        switch role {
        case .exchange: exchangeSpanID
        case .attempt(let number): attemptSpanIDs[number] ?? exchangeSpanID
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
    }

    /// Lowercase hex (as `TraceContext` holds it) to bytes; nil when not hex of even length.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
