import Foundation
import Loupe
import LoupeTrace

/// Recorded exchanges for the serving tests, in recorded order.
enum Recordings {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func exchange(_ method: String, _ pathAndQuery: String, status: Int, body: String = "", requestBody: String? = nil,
                         requestHeaders: [TraceHeader] = [], responseHeaders: [TraceHeader] = [], offset: Int = 0) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "", method: method, url: "https://api.example.com" + pathAndQuery,
            startedAt: start.addingTimeInterval(Double(offset)), endedAt: start.addingTimeInterval(Double(offset) + 0.1),
            outcome: status < 400 ? .success : .httpError, status: status,
            requestHeaders: requestHeaders,
            requestBody: requestBody.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count, isTruncated: false) },
            responseHeaders: responseHeaders + [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false))
    }
}
