/// Where a ``NetworkTraceInspector`` also sends what it records: the seam a live link (the `LoupeLink` module) and
/// an OpenTelemetry exporter (`LoupeOTLP`) plug into, so that the recorder itself needs no networking. The recorder
/// takes any number, side by side (``NetworkTraceInspector/Configuration/forwarders``); each gets every batch.
///
/// The recorder calls ``forward(_:)`` on its background writer, never on the request path, with exchanges in
/// their stored form: redacted and capped exactly as the store will hold them, so nothing leaves the app that the
/// store would not keep. Whatever a forwarder does, the store is written the same way.
public protocol TraceForwarding: AnyObject, Sendable {
    /// Takes a batch of recorded exchanges. Must not block or throw: a forwarder that cannot keep up drops and
    /// counts, it does not slow the recorder.
    func forward(_ exchanges: [TraceExchange])

    /// Called once by ``NetworkTraceInspector/shutdown()`` after the last ``forward(_:)``: sends what it can within
    /// its own time limit, then stops.
    func finish() async
}
