import Foundation
import HTTPTypes

/// The low-cardinality names that logging, metrics and tracing share, so dashboards and traces line up.
enum ObservabilityLabels {
    /// `1xx` … `5xx` for a status, `error` when no response arrived.
    static func statusClass(_ status: Int?) -> String {
        guard let status, (100..<600).contains(status) else { return "error" }
        return "\(status / 100)xx"
    }

    /// OpenTelemetry's `error.type`: the status code for 4xx and 5xx, else the failure's kind or type name.
    static func errorType(status: Int) -> String? {
        status >= 400 ? String(status) : nil
    }

    /// OpenTelemetry's `error.type` for a thrown error (`timed_out`, `tls_failure`, `CircuitOpenError`, …).
    static func errorType(_ error: any Error) -> String {
        if let error = error as? TransportError {
            return error.kind.description.lowercased().replacingOccurrences(of: " ", with: "_")
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: type(of: error))
    }

    /// The server's host name, `unknown` when the request has no authority.
    static func host(_ request: HTTPRequest) -> String {
        // From the authority, not `request.url` (which parses the whole URL again), and over its UTF-8 bytes in
        // place rather than Characters or the generic `UTF8View`: the delimiters are ASCII bytes, and the metrics
        // middleware asks for every request.
        guard var authority = request.authority, !authority.isEmpty else { return "unknown" }
        let whole = authority.utf8.count
        let range = authority.withUTF8 { bytes -> Range<Int>? in
            var start = 0
            var end = bytes.count
            if let at = bytes.lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
            if start < end, bytes[start] == UInt8(ascii: "[") {
                // [IPv6]:port → the address without brackets, as `URL.host` gives it.
                guard let close = bytes[start...].firstIndex(of: UInt8(ascii: "]")) else { return 0..<bytes.count }
                start += 1
                end = close
            } else if let colon = bytes[start...].lastIndex(of: UInt8(ascii: ":")) {
                end = colon
            }
            return start < end ? start..<end : nil
        }
        guard let range else { return "unknown" }
        if range == 0..<whole { return authority }
        return authority.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The URL to show: never the user-info part, and `<redacted>` for the values of `redactedQueryItems`.
    static func displayURL(_ request: HTTPRequest, redactingQueryItems redacted: Set<String> = []) -> String {
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return request.path ?? "/"
        }
        components.user = nil
        components.password = nil
        if !redacted.isEmpty, let items = components.queryItems {
            components.queryItems = items.map { item in
                redacted.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "<redacted>") : item
            }
        }
        return components.string ?? url.absoluteString
    }

    /// Milliseconds with one decimal, for log lines.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        return String(format: "%.1f", milliseconds)
    }
}
