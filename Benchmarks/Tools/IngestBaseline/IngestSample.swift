import Foundation
import Loupe
import LoupeTrace

/// The exchange every ingest measurement writes: shaped like what the recorder makes of one `GET /v1/ping`
/// (one attempt, two request headers, one response header, a 34-byte JSON body, no events).
package enum IngestSample {
    package static let responseJSON = #"{"ok":true,"id":42,"name":"loupe"}"#

    package static func exchange(id: UUID = ExchangeID.make(), at start: Date = Date()) -> TraceExchange {
        TraceExchange(
            id: id, operation: "GET /v1/ping", method: "GET", url: "https://api.example.com/v1/ping",
            startedAt: start, endedAt: start.addingTimeInterval(0.012), outcome: .success, status: 200,
            requestHeaders: [
                TraceHeader(name: "Accept", value: "application/json"),
                TraceHeader(name: "User-Agent", value: "Loupe/1.0"),
            ],
            responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: TraceBody(data: Data(responseJSON.utf8), size: responseJSON.utf8.count, isTruncated: false),
            attempts: [TraceAttempt(
                number: 1, startedAt: start, requestSentAt: start.addingTimeInterval(0.001),
                firstByteAt: start.addingTimeInterval(0.010), endedAt: start.addingTimeInterval(0.012), status: 200)])
    }
}
