import Foundation

/// The W3C trace context an exchange was sent with, read from its recorded `traceparent` header.
public struct TraceContext: Sendable, Hashable, Codable {
    /// 32 lowercase hex digits.
    public var traceID: String
    /// 16 lowercase hex digits: the span of the (last) attempt on the wire.
    public var spanID: String
    /// Whether the caller sampled the trace.
    public var sampled: Bool

    /// Parses `version-traceid-spanid-flags` as W3C Trace Context level 1 defines it; `nil` when malformed.
    public init?(traceparent: String) {
        let parts = traceparent.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "-")
        guard parts.count >= 4, parts[0].count == 2, parts[0] != "ff",
              parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }),
              parts[1] != String(repeating: "0", count: 32), parts[2] != String(repeating: "0", count: 16),
              let flags = UInt8(parts[3], radix: 16) else { return nil }
        traceID = String(parts[1])
        spanID = String(parts[2])
        sampled = flags & 1 == 1
    }
}

extension TraceExchange {
    /// The W3C trace and span ids this exchange carried, when a tracing middleware sent a `traceparent`.
    ///
    /// Derived from the recorded request headers (which are the last attempt's, as sent), so it survives every
    /// store and HAR round trip without a column of its own.
    public var traceContext: TraceContext? {
        requestHeaders.first { $0.name.lowercased() == "traceparent" }.flatMap { TraceContext(traceparent: $0.value) }
    }
}
