import Foundation
import Loupe
import LoupeTrace
import Synchronization

/// The streams a cassette is recording or playing, by exchange, and how many connections are open.
///
/// A server-sent event stream is one exchange whatever its connections (each reconnection is an attempt of it, with
/// the same ``RequestContext/exchangeID``): the table is how a reconnection finds the interaction it continues.
struct CassetteStreamTable {
    /// One stream's interaction.
    struct Entry {
        /// Its index in the playlist.
        var index: Int
        /// Connections opened so far.
        var connections: Int
        /// Being recorded (the unredacted exchange growing message by message) rather than played.
        var recording: TraceExchange?
    }

    var entries: [UUID: Entry] = [:]
    /// Connections open (recording or playing).
    var open = 0
    /// Who waits for every connection to close: resumed with `true` then, or `false` by its timer.
    var waiters: [UUID: CheckedContinuation<Bool, Never>] = [:]
    /// Played streams that departed from their recording, for ``Cassette/assertAllPlayed()``.
    var failures: [CassetteError] = []

    /// A connection ended: the waiters to resume when none is left open.
    mutating func close() -> [CheckedContinuation<Bool, Never>] {
        open -= 1
        guard open == 0 else { return [] }
        defer { waiters = [:] }
        return Array(waiters.values)
    }
}

/// How one recorded connection of a server-sent event stream ended, as kept in its attempt's notes (`end`).
enum CassetteConnectionEnd: String {
    /// The server closed it (the client then reconnects).
    case server
    /// It broke (the attempt's `error` says how); the client reconnects.
    case dropped
    /// The client closed it (the test stopped reading): played, it stays open until the client closes it again.
    case client
}

extension Cassette {
    /// Attempt notes of a recorded event-stream connection: messages it carried, `Last-Event-ID` it was opened
    /// with, how it ended.
    enum StreamNote {
        static let messages = "messages"
        static let lastEventID = "lastEventID"
        static let end = "end"
    }

    /// The stream `exchangeID` belongs to, if this cassette is recording or playing it.
    func streamEntry(_ exchangeID: UUID) -> CassetteStreamTable.Entry? {
        streams.withLock { $0.entries[exchangeID] }
    }

    /// Counts a connection as open (``streamsEnded()`` waits for it).
    func openConnection(_ exchangeID: UUID, _ entry: CassetteStreamTable.Entry) {
        streams.withLock { table in
            table.entries[exchangeID] = entry
            table.open += 1
        }
    }

    /// A connection ended; `recording` is the stream's exchange as it now stands, to save.
    func closeConnection(_ exchangeID: UUID, recording: TraceExchange? = nil) {
        var saveError: CassetteError?
        if let recording, let index = streamEntry(exchangeID)?.index {
            let stored = redactor.stored(recording)
            do {
                try playlist.withLock { list throws(CassetteError) in
                    list.replace(at: index, with: stored)
                    try CassetteFile.save(list.interactions, to: path)
                }
            } catch {
                saveError = error
            }
        }
        let waiters = streams.withLock { table in
            if let saveError { table.failures.append(saveError) }
            if let recording { table.entries[exchangeID]?.recording = recording }
            return table.close()
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Notes a played stream that departed from its recording and returns the error to end it with.
    func streamFailure(_ message: String) -> CassetteError {
        let error = CassetteError(.noMatch, path: path, message: message)
        streams.withLock { $0.failures.append(error) }
        return error
    }
}
