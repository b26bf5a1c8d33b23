import Foundation
import LoupeQuery
import LoupeTrace

/// How a server answers: matching, what follows a used-up sequence, misses, and where served exchanges go.
public struct ServeOptions: Sendable {
    /// How live requests are compared with recorded ones.
    package var matching: ServeMatching
    /// What answers once a request's recordings have all been served.
    public var repeatPolicy: ServeRepeat
    /// Where a miss is sent instead of answered 404 (`--passthrough`): its answer is recorded and served from then
    /// on. `nil` (the default): a miss never leaves the process.
    public var passthrough: URL?
    /// The largest request body read, in bytes; a larger one is answered 413.
    public var maximumRequestBody: Int
    /// The store every served request is recorded into (marked served), misses included; `nil` records nothing.
    /// Written by the recorder's batched writer, off the request path: a store that falls behind never holds an
    /// answer back; what does not fit in the writer's queue is dropped and counted.
    public var store: (any TraceStoreWriting)?
    /// How many served exchanges may wait for the store; more are dropped (the recorder's default queue).
    public var recordingQueue: Int = NetworkTraceInspector.Configuration().queueCapacity
    /// The redaction applied to live requests before they are matched or recorded (the recorder's by default).
    public var redaction: RedactionPolicy
    /// The rules served answers pass through (`LOUPE_RULES`); `nil`: none.
    package var rules: ServeRules?
    /// `--pace`: the recorded time to first byte and transfer waited again, scaled by this factor; `nil` answers at once.
    public var pace: Double?
    /// The longest any one answer is paced, whatever the recording says.
    public static let maximumPace: TimeInterval = 60

    package init(matching: ServeMatching = ServeMatching(), repeatPolicy: ServeRepeat = .last, passthrough: URL? = nil,
                 maximumRequestBody: Int = 16 << 20, store: (any TraceStoreWriting)? = nil, redaction: RedactionPolicy = RedactionPolicy(),
                 rules: ServeRules? = nil, pace: Double? = nil) {
        self.rules = rules
        self.pace = pace
        self.matching = matching
        self.repeatPolicy = repeatPolicy
        self.passthrough = passthrough
        self.maximumRequestBody = maximumRequestBody
        self.store = store
        self.redaction = redaction
    }
}
