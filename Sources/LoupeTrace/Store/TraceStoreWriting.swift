/// Where the recorder puts what it recorded: the one requirement a store needs to be written to.
///
/// `write` is synchronous and may block on I/O; the recorder calls it from its background writer only, never
/// from the request path. Reading a store back is `LoupeQuery`'s `TraceStore`, which refines this protocol, so an
/// app that only records compiles none of the queries.
public protocol TraceStoreWriting: Sendable {
    /// Stores finished exchanges (replacing any with the same id), assigning their sequence numbers.
    func write(_ exchanges: [TraceExchange]) throws
}
