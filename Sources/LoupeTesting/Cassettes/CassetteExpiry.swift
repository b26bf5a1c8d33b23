/// What a cassette does when its recording is older than its `maxAge`.
///
/// Age runs from the oldest interaction's recording time to the cassette's clock (`now`) when it is opened: an old
/// recording means the API may have moved on, and the fixture may be lying.
public enum CassetteExpiry: Sendable, Hashable {
    /// Plays it anyway and reports a warning (a Swift Testing issue of severity `.warning` inside a test).
    case warn
    /// Refuses to open it: ``Cassette/init(path:mode:matching:allowPlaybackRepeats:secrets:redaction:maxAge:onExpiry:now:)``
    /// throws ``CassetteError/Code/expired``.
    case fail
    /// Throws the recording away and records again, as in ``CassetteMode/all``. With ``CassetteMode/none``, which
    /// never records, this fails as ``fail`` does.
    case reRecord
}
