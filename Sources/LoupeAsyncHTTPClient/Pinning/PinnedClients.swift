import AsyncHTTPClient
import Synchronization

/// The clients that pinned transports created, so `send` can tell a pin failure from any other TLS failure.
///
/// `HTTPClient.configuration` is internal to AsyncHTTPClient and an extension cannot add a stored property to
/// ``AsyncHTTPClientTransport``, so the pin count lives here, keyed by the client's identity. Entries hold the
/// client weakly: an identifier reused by a later client never matches, and dead entries are swept on insert.
enum PinnedClients {
    private struct Entry {
        weak var client: HTTPClient?
        var pinCount: Int
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// Remembers that `client` trusts only `pinCount` pinned certificates.
    static func register(_ client: HTTPClient, pinCount: Int) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.client != nil }
            entries[ObjectIdentifier(client)] = Entry(client: client, pinCount: pinCount)
        }
    }

    /// The number of pins `client` was created with, or `nil` when it is not pinned.
    static func pinCount(of client: HTTPClient) -> Int? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(client)], entry.client === client else { return nil }
            return entry.pinCount
        }
    }
}
