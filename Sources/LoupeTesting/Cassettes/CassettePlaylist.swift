import LoupeTrace

/// A cassette's interactions in recorded order and how often each was played: decides which one answers a request.
///
/// A value type whose methods return decisions (SwiftNIO state-machine style); ``Cassette`` keeps it under a lock.
/// Identical requests take identical interactions in recorded order (a 429, then the 200 after it): the first
/// matching interaction not yet played answers. Once all are played, the last matching one answers again when
/// repeats are allowed, so a client that retries keeps getting the final answer.
struct CassettePlaylist {
    /// What answers a request.
    enum Decision {
        /// The interaction at this index (0-based, recorded order).
        case play(Int, TraceExchange)
        /// Nothing may: why, for the error.
        case miss(CassetteMiss)
    }

    private(set) var interactions: [TraceExchange]
    private(set) var requests: [CassetteRequest]
    private(set) var playCounts: [Int]

    init(_ interactions: [TraceExchange]) {
        self.interactions = interactions
        self.requests = interactions.map(CassetteRequest.init)
        self.playCounts = Array(repeating: 0, count: interactions.count)
    }

    /// Chooses the interaction answering `request` and counts it as played; with `allowRepeats`, an interaction
    /// already played may answer when no unplayed one matches.
    mutating func take(_ request: CassetteRequest, matchers: [CassetteMatcher], allowRepeats: Bool) -> Decision {
        var verdicts: [[CassetteMiss.Verdict]] = []
        verdicts.reserveCapacity(requests.count)
        for (index, recorded) in requests.enumerated() {
            let judged = matchers.map { CassetteMiss.Verdict(name: $0.name, verdict: $0.verdict(live: request, recorded: recorded)) }
            if playCounts[index] == 0, judged.allSatisfy(\.verdict.isMatch) {
                playCounts[index] += 1
                return .play(index, interactions[index])
            }
            verdicts.append(judged)
        }
        if allowRepeats, let index = verdicts.indices.last(where: { verdicts[$0].allSatisfy(\.verdict.isMatch) }) {
            playCounts[index] += 1
            return .play(index, interactions[index])
        }
        return .miss(CassetteMiss(request: request, candidates: verdicts.enumerated().map { index, judged in
            CassetteMiss.Candidate(
                number: index + 1, method: requests[index].method, pathAndQuery: requests[index].pathAndQuery,
                verdicts: judged, alreadyPlayed: playCounts[index] > 0)
        }))
    }

    /// Adds a new recording, counted as played (the request it answers has been sent).
    mutating func append(_ interaction: TraceExchange) {
        interactions.append(interaction)
        requests.append(CassetteRequest(interaction))
        playCounts.append(1)
    }

    /// Puts a newer form of the interaction at `index` in its place (a stream being recorded, connection by
    /// connection), keeping its play count.
    mutating func replace(at index: Int, with interaction: TraceExchange) {
        interactions[index] = interaction
        requests[index] = CassetteRequest(interaction)
    }

    /// The indices of the interactions never played, in order.
    var unplayed: [Int] { playCounts.indices.filter { playCounts[$0] == 0 } }
}
