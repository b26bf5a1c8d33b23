import Foundation

/// A request as the app asked for it, kept beside an exchange whose request a rule or an edit changed before it
/// went on the wire (``TraceExchange/beforeRule``). The exchange's own method, URL, headers and body are what was
/// sent; this is what was asked for. Redacted like the exchange.
public struct TraceRequest: Sendable, Codable, Hashable {
    public var method: String
    public var url: String
    public var headers: [TraceHeader]
    /// The app's body; `nil` when it had none or the change left the body as it was.
    public var body: Optional<TraceBody>

    public init(method: String, url: String, headers: [TraceHeader], body: TraceBody? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The store's column text (schema v10): JSON with sorted keys; the body's bytes in base64.
    package var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The store's column read back; anything that does not read (a hand-edited row) is none.
    package static func stored(_ text: String?) -> TraceRequest? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(TraceRequest.self, from: Data(text.utf8))
    }
}
