import Foundation
import LoupeTrace
import Tracing

/// One OTLP/HTTP request body: an `ExportTraceServiceRequest` in protobuf (`application/x-protobuf`) holding the
/// spans of whole exchanges (an exchange's spans never straddle two requests).
public struct OTLPBatch: Sendable, Hashable {
    /// The encoded `ExportTraceServiceRequest`.
    public var body: [UInt8]
    /// Spans in it: one per exchange and one per attempt.
    public var spanCount: Int
    /// Exchanges in it.
    public var exchangeCount: Int

    /// A batch of already encoded spans.
    public init(body: [UInt8], spanCount: Int, exchangeCount: Int) {
        self.body = body
        self.spanCount = spanCount
        self.exchangeCount = exchangeCount
    }
}

/// Encodes recorded exchanges as OTLP trace messages (opentelemetry-proto's `trace/v1/trace.proto`,
/// `collector/trace/v1/trace_service.proto`; field numbers below are theirs).
///
/// Exchanges are grouped into one `ResourceSpans` per app, `service.name` being the linked app's name or `loupe`
/// (with `host.name` and `process.pid` when the live link said them), each with one `ScopeSpans` of scope `Loupe`
/// at this version. Each span is what ``TraceExchange/recordedSpans`` says (the same mapping as
/// ``TraceSpanExporter``), with the ids of `OTLPSpanIDs`, kind CLIENT, and its attributes in key order so the same
/// store always encodes to the same bytes.
public enum OTLPTraceRequest {
    /// The scope spans are reported under.
    public static let scopeName = "Loupe"

    /// The request body for `exchanges`.
    public static func encode(_ exchanges: some Collection<TraceExchange>) -> OTLPBatch {
        // Grouped by app in order of first appearance, so the bytes depend only on the exchanges' order.
        var order: [String] = []
        var groups: [String: [TraceExchange]] = [:]
        for exchange in exchanges {
            let key = exchange.source.map { "\($0.app)\u{0}\($0.host)\u{0}\($0.pid)" } ?? ""
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(exchange)
        }
        var writer = ProtobufWriter(capacity: 1024 * exchanges.count)
        var spanCount = 0
        for key in order {
            let group = groups[key] ?? []
            // ExportTraceServiceRequest.resource_spans = 1
            writer.messageField(1) { resourceSpans in
                // ResourceSpans.resource = 1 → Resource.attributes = 1
                resourceSpans.messageField(1) { resource in
                    let source = group.first?.source
                    writeKeyValue(1, "service.name", .string(source?.app ?? "loupe"), into: &resource)
                    if let source {
                        writeKeyValue(1, "host.name", .string(source.host), into: &resource)
                        writeKeyValue(1, "process.pid", .int64(Int64(source.pid)), into: &resource)
                    }
                }
                // ResourceSpans.scope_spans = 2
                resourceSpans.messageField(2) { scopeSpans in
                    // ScopeSpans.scope = 1: InstrumentationScope.name = 1, version = 2
                    scopeSpans.messageField(1) { scope in
                        scope.stringField(1, scopeName)
                        scope.stringField(2, LoupeVersion.current)
                    }
                    for exchange in group {
                        let ids = OTLPSpanIDs(exchange)
                        for span in exchange.recordedSpans {
                            // ScopeSpans.spans = 2
                            scopeSpans.messageField(2) { writeSpan(span, ids: ids, into: &$0) }
                            spanCount += 1
                        }
                    }
                }
            }
        }
        return OTLPBatch(body: writer.bytes, spanCount: spanCount, exchangeCount: exchanges.count)
    }

    /// How many spans `exchanges` become (one per exchange and one per attempt).
    public static func spanCount(of exchanges: some Sequence<TraceExchange>) -> Int {
        exchanges.reduce(0) { $0 + 1 + $1.attempts.count }
    }

    /// Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11,
    /// status 15.
    private static func writeSpan(_ span: RecordedSpan, ids: OTLPSpanIDs, into writer: inout ProtobufWriter) {
        writer.bytesField(1, ids.traceID)
        writer.bytesField(2, ids.spanID(span.role))
        if case .attempt = span.role { writer.bytesField(4, ids.exchangeSpanID) }
        writer.stringField(5, span.name)
        writer.varintField(6, 3)  // SPAN_KIND_CLIENT
        writer.fixed64Field(7, RecordedSpan.unixNanoseconds(span.start))
        writer.fixed64Field(8, RecordedSpan.unixNanoseconds(span.end))
        writeAttributes(9, span.attributes, into: &writer)
        for event in span.events {
            // Span.Event: time_unix_nano 1, name 2, attributes 3
            writer.messageField(11) { out in
                out.fixed64Field(1, RecordedSpan.unixNanoseconds(event.at))
                out.stringField(2, event.name)
                writeAttributes(3, event.attributes, into: &out)
            }
        }
        if let message = span.errorMessage {
            // Status: message 2, code 3 (STATUS_CODE_ERROR = 2)
            writer.messageField(15) { status in
                status.stringField(2, message ?? "")
                status.varintField(3, 2)
            }
        }
    }

    private static func writeAttributes(_ field: Int, _ attributes: SpanAttributes, into writer: inout ProtobufWriter) {
        var pairs: [(String, SpanAttribute)] = []
        pairs.reserveCapacity(attributes.count)
        attributes.forEach { pairs.append(($0, $1)) }
        for (key, value) in pairs.sorted(by: { $0.0 < $1.0 }) { writeKeyValue(field, key, value, into: &writer) }
    }

    /// KeyValue: key 1, value 2 (AnyValue).
    private static func writeKeyValue(_ field: Int, _ key: String, _ value: SpanAttribute,
                                      into writer: inout ProtobufWriter) {
        writer.messageField(field) { pair in
            pair.stringField(1, key)
            pair.messageField(2) { writeAnyValue(value, into: &$0) }
        }
    }

    /// AnyValue, a oneof: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5 (ArrayValue:
    /// values 1). The member set is written even at its default value.
    private static func writeAnyValue(_ value: SpanAttribute, into writer: inout ProtobufWriter) {
        func array(_ values: [SpanAttribute]) {
            writer.messageField(5) { list in
                for value in values { list.messageField(1) { writeAnyValue(value, into: &$0) } }
            }
        }
        switch value {
        case .string(let text): writer.stringField(1, text, always: true)
        case .bool(let flag): writer.boolField(2, flag, always: true)
        case .int32(let number): writer.varintField(3, Int64(number), always: true)
        case .int64(let number): writer.varintField(3, number, always: true)
        case .double(let number): writer.doubleField(4, number, always: true)
        case .stringConvertible(let item): writer.stringField(1, item.description, always: true)
        case .stringArray(let items): array(items.map { .string($0) })
        case .boolArray(let items): array(items.map { .bool($0) })
        case .int32Array(let items): array(items.map { .int32($0) })
        case .int64Array(let items): array(items.map { .int64($0) })
        case .doubleArray(let items): array(items.map { .double($0) })
        case .stringConvertibleArray(let items): array(items.map { .string($0.description) })
        default: writer.stringField(1, "", always: true)
        }
    }
}
