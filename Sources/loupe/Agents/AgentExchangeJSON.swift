import Foundation
import LoupeTrace

/// `get_exchange`'s answer: `loupe show --json`'s shape, with bodies and stream messages cut to what the agent
/// asked for, and a sentence for each cut so it knows what it is not seeing (`size` stays the whole size).
struct AgentExchangeJSON: Encodable {
    var exchange: ExchangeJSON
    var cuts: [String]

    init(_ recorded: TraceExchange, maxBodyBytes: Int, maxMessages: Int) {
        exchange = ExchangeJSON(recorded)
        cuts = []
        if let cut = Self.cut(&exchange.requestBody, recorded.requestBody, to: maxBodyBytes) {
            cuts.append("requestBody: \(cut)")
        }
        if let cut = Self.cut(&exchange.responseBody, recorded.responseBody, to: maxBodyBytes) {
            cuts.append("responseBody: \(cut)")
        }
        if let messages = exchange.stream?.messages, messages.count > maxMessages {
            exchange.stream?.messages = Array(messages.prefix(maxMessages))
            cuts.append("stream: the first \(maxMessages) of \(messages.count) messages shown; raise max_messages for more")
        }
        if let messages = exchange.stream?.messages {
            var cutMessages = 0
            exchange.stream?.messages = messages.map { message in
                var message = message
                if let text = message.text, text.utf8.count > maxBodyBytes {
                    message.text = Self.prefix(text, bytes: maxBodyBytes)
                    cutMessages += 1
                } else if let base64 = message.base64, let data = Data(base64Encoded: base64), data.count > maxBodyBytes {
                    message.base64 = data.prefix(maxBodyBytes).base64EncodedString()
                    cutMessages += 1
                }
                return message
            }
            if cutMessages > 0 { cuts.append("stream: \(cutMessages) message payloads cut to \(maxBodyBytes) bytes") }
        }
    }

    /// Cuts `body`'s text (or base64) to `limit` bytes; a sentence saying so when it did.
    private static func cut(_ body: inout ExchangeJSON.Body?, _ recorded: TraceBody?, to limit: Int) -> String? {
        guard var shown = body, let recorded, recorded.data.count > limit else { return nil }
        if let text = shown.text {
            shown.text = prefix(text, bytes: limit)
        } else {
            shown.base64 = recorded.data.prefix(limit).base64EncodedString()
        }
        body = shown
        return "the first \(limit) of \(recorded.data.count) stored bytes shown (size is the whole body); raise max_body_bytes for more"
    }

    /// The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character.
    static func prefix(_ text: String, bytes: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let length = text[index].utf8.count
            if used + length > bytes { break }
            used += length
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    func encode(to encoder: any Encoder) throws {
        try exchange.encode(to: encoder)
        guard !cuts.isEmpty else { return }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(cuts, forKey: .cuts)
    }

    private enum Key: String, CodingKey { case cuts }
}
