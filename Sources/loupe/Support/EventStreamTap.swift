import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// `loupe send`'s body sink when the response is a `text/event-stream`: the bytes go on to standard output (or the
/// file) as they arrive, as for any body, and each event the library's parser completes is recorded as a received
/// message of the exchange, so the store keeps the stream message by message (issue 30, item 6).
///
/// Also an observer, only to learn the exchange's id when it starts (`loupe send` sends one exchange).
final class EventStreamTap: ResponseBodySink, ClientObserver {
    private struct State {
        var exchangeID: UUID?
        var parser: EventStreamParser?
        var events = 0
    }

    private let base: any ResponseBodySink
    private let recorder: any ClientObserver
    private let state = Mutex(State())

    /// Passes the body to `base`; messages go to `recorder` (the store's recorder).
    init(base: any ResponseBodySink, recorder: any ClientObserver) {
        self.base = base
        self.recorder = recorder
    }

    /// Events recorded so far.
    var eventCount: Int { state.withLock { $0.events } }

    var canRestart: Bool { base.canRestart }

    func exchangeStarted(_ exchange: ExchangeStarted) {
        state.withLock { $0.exchangeID = exchange.exchangeID }
    }

    func begin(_ head: HTTPResponse, httpVersion: String?) throws {
        let type = head.headerFields[.contentType]?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        state.withLock { $0.parser = type == "text/event-stream" ? EventStreamParser() : nil }
        try base.begin(head, httpVersion: httpVersion)
    }

    func write(_ chunk: Data) throws {
        try base.write(chunk)
        let (events, id) = state.withLock { state -> ([ServerSentEvent], UUID?) in
            guard state.parser != nil else { return ([], nil) }
            let events = state.parser!.feed(chunk)
            state.events += events.count
            return (events, state.exchangeID)
        }
        guard let id else { return }
        let now = Date()
        for event in events {
            recorder.messageRecorded(ExchangeMessage(
                exchangeID: id, direction: .received, at: now, type: event.type, payload: Data(event.data.utf8),
                eventID: event.id, stream: .eventStream))
        }
    }

    func finish(byteCount: Int64) throws {
        try base.finish(byteCount: byteCount)
    }
}
