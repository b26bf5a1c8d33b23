import AsyncHTTPClient
import Foundation

/// Names AsyncHTTPClient's decompression limit when a body passes it (NIO's own error just says `limit`).
enum DecompressionLimitText {
    /// Whether `error` is `NIOHTTPDecompression.DecompressionError.limit`. Matched by name: this target does not
    /// depend on NIOHTTPCompression, which AHC uses internally.
    static func isLimitError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasSuffix("NIOHTTPDecompression.DecompressionError")
            && String(describing: error) == "limit"
    }

    /// The one-line message: what happened, the limit, and how to raise it (`raise`: where the reader can, a flag
    /// or an API) or avoid it.
    static func message(limit: String?, raise: String) -> String {
        let limit = limit.map { "the decompression limit (\($0))" } ?? "the client's decompression limit"
        return "the compressed response body inflates past \(limit); raise it with \(raise), "
            + "or ask for an uncompressed body (-H 'Accept-Encoding: identity')"
    }

    /// `25× the compressed size` or `1048576 bytes` for an enabled limit; `nil` when decompression is off or
    /// unlimited. AHC keeps the limit's value private, so it is read from the value's description.
    static func describe(_ decompression: HTTPClient.Decompression) -> String? {
        guard case .enabled(let limit) = decompression else { return nil }
        let text = String(describing: limit)
        if let ratio = number(after: "ratio(", in: text) { return "\(ratio)× the compressed size" }
        if let size = number(after: "size(", in: text) { return "\(size) bytes" }
        return nil
    }

    private static func number(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
