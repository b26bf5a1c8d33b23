import Foundation
import LoupeTrace

/// Response headers compared by name (without regard to case), each name's values in order.
package enum HeaderDiff {
    /// Headers that differ between any two responses of the same request, left out unless asked for: dates and
    /// ages, request and trace ids, per-response timings and CDN hop notes, hop-by-hop fields, and
    /// `Content-Length` (the body comparison reports the change itself).
    package static let volatileNames: Set<String> = [
        "date", "age", "expires", "content-length", "connection", "keep-alive", "transfer-encoding",
        "x-request-id", "request-id", "x-correlation-id", "correlation-id", "x-trace-id", "x-amzn-requestid",
        "x-amz-request-id", "x-amz-id-2", "x-amzn-trace-id", "x-amz-cf-id", "x-amz-cf-pop", "x-ms-request-id",
        "x-goog-request-id", "x-cloud-trace-context", "traceparent", "tracestate", "b3", "x-b3-traceid",
        "x-b3-spanid", "x-b3-parentspanid", "x-b3-sampled", "cf-ray", "x-runtime", "x-response-time",
        "server-timing", "x-served-by", "x-cache", "x-cache-hits", "x-timer", "x-envoy-upstream-service-time",
    ]

    /// Cookie attributes that only say when a cookie expires, which moves with the clock.
    static let volatileCookieAttributes: Set<String> = ["expires", "max-age"]

    /// The differences from `old` to `new`, in the order the names first appear (the original's first).
    package static func differences(
        _ old: [TraceHeader], _ new: [TraceHeader], ignoring ignored: Set<String> = volatileNames
    ) -> [Difference] {
        let before = grouped(old, ignoring: ignored)
        let after = grouped(new, ignoring: ignored)
        var names = before.order
        names += after.order.filter { before.values[$0] == nil }
        var result: [Difference] = []
        for key in names {
            let left = before.values[key]
            let right = after.values[key]
            guard left != right else { continue }
            // A redacted value cannot be compared, and showing the other side could print the secret it hid.
            if (left ?? []).contains(where: isRedacted) || (right ?? []).contains(where: isRedacted) { continue }
            let location = DiffLocation.header(before.display[key] ?? after.display[key] ?? key)
            switch (left, right) {
            case (let left?, let right?): result.append(Difference(location, .changed(from: joined(left), to: joined(right))))
            case (let left?, nil): result.append(Difference(location, .removed(joined(left))))
            case (nil, let right?): result.append(Difference(location, .added(joined(right))))
            case (nil, nil): break
            }
        }
        return result
    }

    /// `Set-Cookie` without its expiry attributes; other values with surrounding spaces trimmed.
    package static func normalized(name: String, value: String) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard name.lowercased() == "set-cookie" else { return trimmed }
        return trimmed.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { attribute in
            let attributeName = attribute.split(separator: "=", maxSplits: 1).first.map(String.init) ?? attribute
            return !volatileCookieAttributes.contains(attributeName.trimmingCharacters(in: .whitespaces).lowercased())
        }.joined(separator: "; ")
    }

    private struct Grouped {
        var order: [String] = []
        var display: [String: String] = [:]
        var values: [String: [String]] = [:]
    }

    private static func grouped(_ headers: [TraceHeader], ignoring ignored: Set<String>) -> Grouped {
        var result = Grouped()
        for header in headers {
            let key = header.name.lowercased()
            guard !ignored.contains(key) else { continue }
            if result.values[key] == nil {
                result.order.append(key)
                result.display[key] = header.name
            }
            result.values[key, default: []].append(normalized(name: header.name, value: header.value))
        }
        return result
    }

    private static func joined(_ values: [String]) -> String {
        let text = values.joined(separator: ", ")
        return text.count > JSONDiff.valueLimit ? String(text.prefix(JSONDiff.valueLimit - 1)) + "…" : text
    }

    private static func isRedacted(_ value: String) -> Bool { value.contains(RedactionPolicy.marker) }
}
