import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// Playing a recorded event stream back: its connections, as ``CassetteTransport``'s `stream` answers them.
extension Cassette {
    /// One recorded connection of an event stream: its attempt, events and how it ended.
    struct RecordedConnection {
        var status: Int
        var lastEventID: String?
        var messages: ArraySlice<TraceMessage>
        var end: CassetteConnectionEnd
        var error: String?
        var startedAt: Date
        /// `retry:` values: by the index of the message they came with, and those with no message.
        var retries: [Int: Int]
        var trailingRetries: [(before: Int, retry: Int)]
    }

    /// The recorded connections of `exchange`, in order. A recording made by the flight recorder (no notes) is read
    /// by time: each connection's events are those after its `stream-open`.
    static func connections(of exchange: TraceExchange) -> [RecordedConnection] {
        let messages = (exchange.stream?.messages ?? []).sorted { $0.index < $1.index }
        let attempts = exchange.attempts.isEmpty
            ? [TraceAttempt(number: 1, startedAt: exchange.startedAt, status: exchange.status)] : exchange.attempts
        let opens = exchange.events.filter { $0.kind == .streamOpen }.map(\.at)
        let counted = attempts.allSatisfy { $0.notes[StreamNote.messages] != nil || $0.status != 200 }
        var result: [RecordedConnection] = []
        var start = 0
        var openIndex = 0
        for (position, attempt) in attempts.enumerated() {
            let isLast = position == attempts.count - 1
            var count = 0
            if counted {
                count = Int(attempt.notes[StreamNote.messages] ?? "0") ?? 0
            } else if attempt.status == 200 {
                let next = openIndex + 1 < opens.count ? opens[openIndex + 1] : nil
                openIndex += 1
                count = isLast || next == nil ? messages.count - start : messages[start...].prefix { $0.at < next! }.count
            }
            count = max(0, min(count, messages.count - start))
            let end = attempt.notes[StreamNote.end].flatMap(CassetteConnectionEnd.init(rawValue:))
                ?? (!isLast ? (attempt.error == nil ? .server : .dropped) : exchange.stream?.closedBy == "server" ? .server : .client)
            let number = String(attempt.number)
            var retries: [Int: Int] = [:]
            var trailing: [(Int, Int)] = []
            for event in exchange.events where event.kind == .streamRetry && event.attributes["attempt"] == number {
                guard let retry = event.attributes["retryMs"].flatMap(Int.init) else { continue }
                if let index = event.attributes["message"].flatMap(Int.init) { retries[index] = retry }
                if let before = event.attributes["beforeMessage"].flatMap(Int.init) { trailing.append((before, retry)) }
            }
            result.append(RecordedConnection(
                status: attempt.status ?? exchange.status ?? 200, lastEventID: attempt.notes[StreamNote.lastEventID],
                messages: messages[start..<(start + count)], end: end, error: attempt.error, startedAt: attempt.startedAt,
                retries: retries, trailingRetries: trailing))
            start += count
        }
        return result
    }

    /// Answers the next connection of the played stream `entry`.
    func playConnection(of entry: CassetteStreamTable.Entry, request: HTTPRequest, context: RequestContext) throws -> StreamedResponse {
        let exchange = playlist.withLock { $0.interactions[entry.index] }
        let connections = Self.connections(of: exchange)
        let number = entry.connections + 1
        let name = "the event stream recorded as interaction #\(entry.index + 1) of \(path)"
        guard number <= connections.count else {
            throw streamFailure("""
                the client opened connection #\(number) of \(name), which recorded \(connections.count) \
                connection\(connections.count == 1 ? "" : "s")
                """)
        }
        let connection = connections[number - 1]
        let sent = request.headerFields[CassetteTransport.lastEventID]
        if number > 1, sent != connection.lastEventID {
            throw streamFailure("""
                the client reopened \(name) (connection #\(number)) with Last-Event-ID \(sent.map { "\"\($0)\"" } ?? "none"), \
                but the recording reconnected with \(connection.lastEventID.map { "\"\($0)\"" } ?? "none")
                """)
        }
        context.attempt?.markRequestSent()
        context.attempt?.markFirstByte()
        var fields = HTTPFields()
        for header in exchange.responseHeaders {
            guard let headerName = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: headerName, value: header.value))
        }
        let head = HTTPResponse(status: HTTPResponse.Status(code: connection.status), headerFields: connection.status == 200 ? fields : HTTPFields())
        var table = entry
        table.connections = number
        guard connection.status == 200 else {
            streams.withLock { $0.entries[context.exchangeID] = table }
            return StreamedResponse(response: RawResponse(head: head))
        }
        openConnection(context.exchangeID, table)
        let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let blocks = eventStreamBlocks(connection, lastEventID: sent)
        let clock = context.clock
        let pacing = streamPacing
        let exchangeID = context.exchangeID
        let pump = Task {
            var previous = connection.startedAt
            for (at, block) in blocks {
                if pacing == .recorded, let at {
                    let gap = at.timeIntervalSince(previous)
                    previous = at
                    if gap > 0 { try? await clock.sleep(for: .milliseconds(Int64((gap * 1000).rounded()))) }
                }
                if Task.isCancelled { break }
                continuation.yield(block)
            }
            switch connection.end {
            case .server where !Task.isCancelled:
                continuation.finish()
            case .dropped where !Task.isCancelled:
                continuation.finish(throwing: TransportError(.connectionReset, connection.error ?? "the recorded connection dropped"))
            default:
                // Closed by the client when recorded: open until this client closes it too.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                continuation.finish()
            }
            self.closeConnection(exchangeID)
        }
        continuation.onTermination = { _ in pump.cancel() }
        return StreamedResponse(head: head, body: chunks)
    }

    /// The connection's events written back as `text/event-stream`, one block each with its time; `id:` only where
    /// the last event ID changes (so each event's ``ServerSentEvent/id`` is what was recorded), `retry:` where the
    /// server sent one.
    func eventStreamBlocks(_ connection: RecordedConnection, lastEventID: String?) -> [(Date?, Data)] {
        var current = lastEventID
        var blocks: [(Date?, Data)] = []
        var trailing = connection.trailingRetries[...]
        for message in connection.messages {
            while let first = trailing.first, first.before <= message.index {
                blocks.append((nil, Data("retry: \(first.retry)\n\n".utf8)))
                trailing = trailing.dropFirst()
            }
            var text = ""
            let eventID = message.eventID.map(redactor.secrets.restore(text:))
            if eventID != current {
                text += "id: \(eventID ?? "")\n"
                current = eventID
            }
            if message.type != "message" { text += "event: \(message.type)\n" }
            if let retry = connection.retries[message.index] { text += "retry: \(retry)\n" }
            let data = String(decoding: redactor.secrets.restore(data: message.payload), as: UTF8.self)
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            blocks.append((message.at, Data((text + "\n").utf8)))
        }
        for (_, retry) in trailing { blocks.append((nil, Data("retry: \(retry)\n\n".utf8))) }
        return blocks
    }
}
