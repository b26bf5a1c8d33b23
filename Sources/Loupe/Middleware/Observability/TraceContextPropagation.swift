import Foundation
import HTTPTypes
import Tracing

/// Writes a tracer's propagation values (W3C `traceparent` for OpenTelemetry tracers) into request header fields.
package struct HTTPFieldsInjector: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        // A key that is not a valid field name cannot travel in HTTP; dropping it beats failing the request.
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}

/// Puts trace context on outgoing requests: the tracer's own propagation, and a W3C `traceparent` when the
/// tracer wrote none (a no-op or in-memory tracer), built from Loupe's ids.
///
/// The fallback's trace id is the exchange id (its 32 hex digits), so a server's logs lead straight to the
/// recorded exchange; its parent id is the exchange id's low 64 bits plus the attempt number (0 for the
/// exchange itself), so every attempt is told apart.
package enum TraceContextPropagation {
    package static let traceparent = HTTPField.Name("traceparent")!
    package static let tracestate = HTTPField.Name("tracestate")!

    /// Injects `context` through `tracer`, replacing any trace context an outer middleware set.
    static func inject(
        _ context: ServiceContext, tracer: any Tracer, into request: inout HTTPRequest,
        exchangeID: UUID, attempt: Int, fallback: Bool
    ) {
        request.headerFields[traceparent] = nil
        request.headerFields[tracestate] = nil
        tracer.inject(context, into: &request.headerFields, using: HTTPFieldsInjector())
        if fallback, request.headerFields[traceparent] == nil {
            request.headerFields[traceparent] = fallbackTraceparent(exchangeID: exchangeID, attempt: attempt)
        }
    }

    /// `00-<exchange id>-<low 64 bits + attempt>-01` (sampled: Loupe records every exchange).
    package static func fallbackTraceparent(exchangeID: UUID, attempt: Int) -> String {
        // Written byte by byte into one 55-byte buffer: this runs for every exchange and every attempt. Kept
        // rather than swift-w3c-trace-context's `traceParentHeaderValue`, which is several times slower (it
        // builds the ids' hex through arrays and interpolation); measured in Benchmarks/JOURNAL.md.
        withUnsafeBytes(of: exchangeID.uuid) { id in
            var spanID = (8..<16).reduce(UInt64(0)) { $0 << 8 | UInt64(id[$1]) } &+ UInt64(attempt)
            if spanID == 0 { spanID = 1 }  // W3C forbids an all-zero parent id
            return String(unsafeUninitializedCapacity: 55) { out in
                let digits: StaticString = "0123456789abcdef"
                let hex = UnsafeBufferPointer(start: digits.utf8Start, count: 16)
                var at = 0
                func put(_ byte: UInt8) {
                    out[at] = byte
                    at += 1
                }
                for byte in [UInt8(ascii: "0"), UInt8(ascii: "0"), UInt8(ascii: "-")] { put(byte) }
                for byte in id {
                    put(hex[Int(byte >> 4)])
                    put(hex[Int(byte & 0x0F)])
                }
                put(UInt8(ascii: "-"))
                for shift in stride(from: 60, through: 0, by: -4) { put(hex[Int((spanID >> UInt64(shift)) & 0x0F)]) }
                for byte in [UInt8(ascii: "-"), UInt8(ascii: "0"), UInt8(ascii: "1")] { put(byte) }
                return at
            }
        }
    }
}
