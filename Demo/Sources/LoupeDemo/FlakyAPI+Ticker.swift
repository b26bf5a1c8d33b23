import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

extension FlakyAPI {
    /// The ticks one `/ticker` connection sends after a subscription.
    public static let tickCount = 24
    /// Every third connection is closed by the server after this many ticks (1011, "feed restarting").
    public static let tickerRestartAfter = 10
    /// The server's greeting, the first message of every connection.
    public static let tickerHello = #"{"type":"hello","feed":"loupe-demo"}"#

    /// Counts one server's `/ticker` connections so every third is closed by the server, deterministically.
    private final class ConnectionCounter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The wait before tick `index` (1-based): 30–120 ms apart, like a market feed.
    static func tickPause(_ index: Int) -> Duration { .milliseconds(30 + (index * 53) % 91) }

    /// A tick as the feed writes it.
    public static func tick(_ index: Int, symbol: String) -> String {
        #"{"type":"tick","symbol":"\#(symbol)","seq":\#(index),"price":\#(100 + (index * 37) % 50).\#(index % 100 < 10 ? "0" : "")\#(index % 100)}"#
    }

    /// `/ticker`, a WebSocket: the server greets, waits for `{"subscribe":"SYMBOL"}`, then sends ``tickCount`` ticks
    /// (text), a binary 16-byte snapshot after every sixth, and waits for the client to close. Every third
    /// connection is closed by the server after ``tickerRestartAfter`` ticks with 1011 "feed restarting": a close the
    /// client did not ask for. Pings are answered by the library.
    static func tickerUpgrade(accessLog: AccessLog?) -> @Sendable (HTTPRequest, any Channel, Logger) async throws
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let counter = ConnectionCounter()
        return { request, _, _ in
            guard request.path?.split(separator: "?", maxSplits: 1).first == "/ticker" else { return .dontUpgrade }
            accessLog?.record("\(request.method) /ticker")
            let restarts = counter.value.wrappingAdd(1, ordering: .relaxed).oldValue % 3 == 2
            return .upgrade([:]) { inbound, outbound, _ in
                try await outbound.write(.text(tickerHello))
                var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                guard case .text(let text)? = try await messages.next() else { return }
                let symbol = subscribedSymbol(text) ?? "LOUPE"
                for index in 1...tickCount {
                    try await Task.sleep(for: tickPause(index))
                    try await outbound.write(.text(tick(index, symbol: symbol)))
                    if index % 6 == 0 {
                        var snapshot = ByteBuffer()
                        snapshot.writeInteger(UInt64(index))
                        snapshot.writeInteger(UInt64(100 + (index * 37) % 50))
                        try await outbound.write(.binary(snapshot))
                    }
                    if restarts, index == tickerRestartAfter {
                        try await outbound.close(.unexpectedServerError, reason: "feed restarting")
                        return
                    }
                }
                // The client closes when it has what it wants; its close ends `messages`.
                while try await messages.next() != nil {}
            }
        }
    }

    /// `SYMBOL` from `{"subscribe":"SYMBOL"}`, letters and digits only (it is echoed into every tick).
    static func subscribedSymbol(_ text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let symbol = object["subscribe"] as? String, !symbol.isEmpty, symbol.count <= 12,
              symbol.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return symbol
    }
}
