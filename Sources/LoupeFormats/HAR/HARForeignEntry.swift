import Foundation
import Loupe
import LoupeTrace

/// Builds an exchange from an entry another tool wrote: one attempt, placed on the clock by the entry's timings.
enum HARForeignEntry {
    static func exchange(_ entry: HAREntry, id: UUID, startedAt: Date, requestData: Data?, responseData: Data?)
        -> TraceExchange {
        let request = entry.request
        let response = entry.response
        let status = HARNumbers.status(response.status)
        let error = status == nil ? (response.browserError ?? "no response") : nil
        let attempt = self.attempt(entry.timings, startedAt: startedAt, totalMilliseconds: entry.time,
                                   status: status, error: error)
        let endedAt = known(entry.time).map { startedAt.addingTimeInterval($0 / 1000) } ?? attempt.endedAt
        // Named as the recorder names a request its app left unnamed: by its GraphQL operation, if it has one; and
        // `errors` in its 200 make it an error, as they do there.
        let graphQL = GraphQLOperation.name(method: request.method, url: request.url, body: requestData)
        var ending = outcome(status: status), reason = error
        if graphQL != nil, ending == .success, let message = GraphQLOperation.errorMessage(in: responseData) {
            ending = .httpError
            reason = "GraphQL error: " + message
        }
        return TraceExchange(
            id: id, operation: graphQL ?? "\(request.method) \(path(of: request.url))", method: request.method,
            url: request.url, startedAt: startedAt, endedAt: endedAt, outcome: ending,
            status: status, error: reason,
            requestHeaders: request.headers.map { TraceHeader(name: $0.name, value: $0.value) },
            requestBody: requestBody(requestData, declaredSize: request.bodySize),
            responseHeaders: response.headers.map { TraceHeader(name: $0.name, value: $0.value) },
            responseBody: responseBody(responseData, declaredSize: response.content.size),
            attempts: [attempt])
    }

    /// What a status says about how the exchange ended.
    static func outcome(status: Int?) -> ExchangeOutcome {
        guard let status else { return .transportError }
        return status >= 400 ? .httpError : .success
    }

    /// The attempt's milestones: it starts after `blocked`; the request is sent after `dns`, `connect` and
    /// `send`; the first byte arrives `wait` later, the last `receive` after that. Unknown phases leave their
    /// milestone unknown (and count as zero for the ones after).
    static func attempt(_ timings: HARTimings, startedAt: Date, totalMilliseconds: Double, status: Int?,
                        error: String?) -> TraceAttempt {
        func after(_ date: Date, _ milliseconds: Double?) -> Date { date.addingTimeInterval((known(milliseconds) ?? 0) / 1000) }
        let start = after(startedAt, timings.blocked)
        let connected = after(after(start, timings.dns), timings.connect)
        let requestSent = known(timings.send).map { connected.addingTimeInterval($0 / 1000) }
        let firstByte = known(timings.wait).map { after(connected, timings.send).addingTimeInterval($0 / 1000) }
        let end = firstByte.flatMap { firstByte in known(timings.receive).map { firstByte.addingTimeInterval($0 / 1000) } }
            ?? known(totalMilliseconds).map { startedAt.addingTimeInterval($0 / 1000) }
        return TraceAttempt(number: 1, startedAt: start, requestSentAt: requestSent, firstByteAt: firstByte,
                            endedAt: end, status: status, error: error)
    }

    /// A phase that was measured (``HARNumbers/milliseconds(_:)``): finite, not negative, not absurdly long.
    static func known(_ milliseconds: Double?) -> Double? {
        HARNumbers.milliseconds(milliseconds)
    }

    /// Posted bytes; when the tool kept none but says there were some, an empty truncated body of that size.
    static func requestBody(_ data: Data?, declaredSize: Int) -> TraceBody? {
        if let data { return TraceBody(data: data, size: data.count, isTruncated: false) }
        return declaredSize > 0 ? TraceBody(data: Data(), size: declaredSize, isTruncated: true) : nil
    }

    /// Response bytes; `content.size` larger than the text means the tool kept only part (or none) of it.
    static func responseBody(_ data: Data?, declaredSize: Int) -> TraceBody? {
        guard let data else {
            return declaredSize > 0 ? TraceBody(data: Data(), size: declaredSize, isTruncated: true) : nil
        }
        return TraceBody(data: data, size: max(data.count, declaredSize), isTruncated: declaredSize > data.count)
    }

    /// The URL's path without the query (it varies per call and may carry secrets), as the client names operations.
    static func path(of url: String) -> String {
        guard let components = URLComponents(string: url), !components.percentEncodedPath.isEmpty else { return "/" }
        return components.percentEncodedPath
    }
}
