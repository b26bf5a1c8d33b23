import Foundation
import LoupeProtobuf
import LoupeTrace

/// Each replay of a run compared with its original, once the run is recorded.
///
/// Replays are compared as recorded (read back from the store), not as received: both sides have then been
/// through the same redaction, so a secret never shows up as a difference. With noise runs, what changes between
/// the first replay of an original and its noise runs is that original's noise.
package enum ReplayComparison {
    /// One compared replay.
    package struct Result: Sendable {
        package var outcome: ReplayOutcome
        /// The replay's sequence number in the store, once read back.
        package var replaySequence: Int64?
        /// The comparison, or nil when there was nothing to compare (see ``problem``).
        package var diff: ExchangeDiff?
        /// Why the replay could not be compared: nothing was sent, or the store no longer has it.
        package var problem: String?
    }

    /// Compares every replay in `outcomes` (noise runs only teach) with its original in `originals`;
    /// `lookup` reads a recorded exchange by id; `messageTypes` reads gRPC messages by field name. Results keep the
    /// order of `outcomes`.
    package static func compare(
        originals: [UUID: TraceExchange], outcomes: [ReplayOutcome], ignore: [DiffPattern],
        volatileHeaders: Set<String> = HeaderDiff.volatileNames, messageTypes: ProtobufDescriptorSet? = nil,
        lookup: (UUID) throws -> TraceExchange?
    ) -> [Result] {
        var profiles: [UUID: NoiseProfile] = [:]
        let noiseRuns = Dictionary(grouping: outcomes.filter(\.isNoiseRun), by: \.originalID)
        var results: [Result] = []
        for outcome in outcomes where !outcome.isNoiseRun {
            guard let original = originals[outcome.originalID] else { continue }
            guard let id = outcome.replayID else {
                results.append(Result(outcome: outcome, problem: "not sent: \(outcome.error ?? "unknown error")"))
                continue
            }
            guard let replay = try? lookup(id) else {
                results.append(Result(outcome: outcome, problem: "the replay is not in the store (pruned, or not recorded)"))
                continue
            }
            if profiles[original.id] == nil {
                // The first replay of this original and its noise runs.
                let runs = [replay] + (noiseRuns[original.id] ?? []).compactMap { $0.replayID.flatMap { try? lookup($0) } }
                profiles[original.id] = NoiseProfile(learningFrom: runs, volatileHeaders: volatileHeaders)
            }
            let options = DiffOptions(ignore: ignore, noise: profiles[original.id] ?? NoiseProfile(), volatileHeaders: volatileHeaders,
                                      messageTypes: messageTypes)
            results.append(Result(outcome: outcome, replaySequence: replay.sequence,
                                  diff: ExchangeDiff(original: original, replay: replay, options: options)))
        }
        return results
    }
}
