/// When a cassette answers from its recording and when it lets a request through to the real transport.
///
/// The names are Ruby VCR's record modes (go-vcr and Polly.JS have the same set under other names).
public enum CassetteMode: String, Sendable, Hashable, CaseIterable {
    /// Records every request when the cassette file does not exist yet; once it exists, only replays (a request
    /// with no recorded match fails). The default: the first run records, every later run is offline.
    case once
    /// Replays the requests it has recorded and records the ones it has not (new episodes), adding them to the file.
    case newEpisodes
    /// Only replays; never touches the network. The cassette file must exist.
    case none
    /// Records every request again, replacing the file's interactions with the new ones; never replays.
    case all
    /// Neither replays nor records: every request goes to the real transport as if there were no cassette.
    case passthrough
}
