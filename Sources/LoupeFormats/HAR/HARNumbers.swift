import Foundation
import LoupeTrace

/// What HAR import does with numbers that cannot be real, in one place (the limits are ``TraceTime``'s):
///
/// - **Instants** (`startedDateTime`, `_loupe` times, and the ends that `time` and `timings` lead to) outside years
///   0000–9999 **refuse the entry**, naming the field: no clock wrote them, and clamping would invent a time.
/// - **Durations** (`time`, `timings.*` in milliseconds, `_loupe` retry delays in seconds) that are negative, not
///   finite or longer than ``TraceTime/maxDuration`` are **unknown**, as HAR's own `-1` is: the entry is still
///   worth having without them.
/// - **Statuses** outside 100–999 mean no status (as HAR's `0` does); **sizes** below the bytes actually present
///   are raised to them.
enum HARNumbers {
    /// A phase or total in milliseconds, when it is a measurement: finite, not negative, not absurdly long.
    static func milliseconds(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return TraceTime.measured(value / 1000).map { _ in value }
    }

    /// A final or attempt status, when it is one an HTTP response can carry.
    static func status(_ value: Int?) -> Int? {
        value.flatMap { (100...999).contains($0) ? $0 : nil }
    }

    /// The exchange with the rules above applied, or the entry's refusal.
    static func checked(_ exchange: TraceExchange, path: String, fromLoupe: Bool) throws(HARImportError) -> TraceExchange {
        var exchange = exchange
        func check(_ date: Date?, _ field: @autoclosure () -> String) throws(HARImportError) {
            guard let date, TraceTime.instant(date.timeIntervalSince1970) == nil else { return }
            throw .invalidEntry(path + "." + field(), "a time outside the years 0000–9999")
        }
        // Without `_loupe`, every time is `startedDateTime` plus what `time` and `timings` add.
        let start = fromLoupe ? "_loupe.startedAt" : "startedDateTime"
        let end = fromLoupe ? "_loupe.endedAt" : "time"
        try check(exchange.startedAt, start)
        try check(exchange.endedAt, end)
        exchange.status = status(exchange.status)
        for index in exchange.attempts.indices {
            let attempt = fromLoupe ? "_loupe.attempts[\(index)]." : "timings."
            try check(exchange.attempts[index].startedAt, attempt + (fromLoupe ? "startedAt" : "blocked"))
            try check(exchange.attempts[index].requestSentAt, attempt + (fromLoupe ? "requestSentAt" : "send"))
            try check(exchange.attempts[index].firstByteAt, attempt + (fromLoupe ? "firstByteAt" : "wait"))
            try check(exchange.attempts[index].endedAt, attempt + (fromLoupe ? "endedAt" : "receive"))
            exchange.attempts[index].status = status(exchange.attempts[index].status)
            exchange.attempts[index].retryDelay = TraceTime.measured(exchange.attempts[index].retryDelay)
        }
        for index in exchange.events.indices {
            try check(exchange.events[index].at, "_loupe.events[\(index)].at")
        }
        for keyPath in [\TraceExchange.requestBody, \TraceExchange.responseBody] {
            if var body = exchange[keyPath: keyPath], body.size < body.data.count {
                body.size = body.data.count
                exchange[keyPath: keyPath] = body
            }
        }
        return exchange
    }
}
