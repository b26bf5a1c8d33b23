/// The recordings a server answers from, and how often each was served: decides which one answers a request.
///
/// A value type whose methods return decisions (SwiftNIO state-machine style); the responder keeps it under a lock.
/// Recordings are filed by method and path, so finding the candidates costs one dictionary look-up however many
/// there are. Identical requests recorded several times (a 503, then a 200) are answered in recorded order: the
/// first matching recording not yet served answers; once all are served, ``ServeRepeat`` decides.
package struct ServeBook: Sendable {
    /// What answers a request.
    package enum Decision: Sendable, Hashable {
        /// The recording at this index (0-based, recorded order; shown as `#index+1`).
        case serve(Int)
        case miss(ServeMiss)
    }

    /// At most this many recordings of one method and path are compared in full to explain a miss: a recording
    /// of a single endpoint (`POST /graphql`) may hold them all.
    static let explainedCandidates = 1_000

    private(set) var requests: [ServeRequest] = []
    private var servedCounts: [Int] = []
    private var byKey: [String: [Int]] = [:]
    private var byPath: [String: [Int]] = [:]
    package let matching: ServeMatching
    package let repeatPolicy: ServeRepeat

    package init(_ requests: [ServeRequest], matching: ServeMatching = ServeMatching(), repeatPolicy: ServeRepeat = .last) {
        self.matching = matching
        self.repeatPolicy = repeatPolicy
        self.requests.reserveCapacity(requests.count)
        for request in requests { _ = add(request, served: 0) }
    }

    /// How many recordings there are.
    package var count: Int { requests.count }

    /// Chooses the recording answering `live` and counts it as served.
    package mutating func take(_ live: ServeRequest) -> Decision {
        let candidates = byKey[live.key] ?? []
        var matched: [Int] = []
        for index in candidates where matching.matches(live, requests[index]) {
            if servedCounts[index] == 0 {
                servedCounts[index] += 1
                return .serve(index)
            }
            matched.append(index)
        }
        guard let first = matched.first, let last = matched.last else { return .miss(explain(live)) }
        switch repeatPolicy {
        case .last:
            servedCounts[last] += 1
            return .serve(last)
        case .cycle:
            for index in matched { servedCounts[index] = 0 }
            servedCounts[first] = 1
            return .serve(first)
        case .miss:
            return .miss(ServeMiss(method: live.method, pathAndQuery: live.pathAndQuery,
                                   reason: .usedUp(closest(last, live), count: matched.count)))
        }
    }

    /// Adds a recording made on a miss (`--passthrough`), counted as served: it answered the request that made it,
    /// and answers the next identical one only as ``ServeRepeat`` says. Returns its index.
    package mutating func append(_ request: ServeRequest) -> Int {
        add(request, served: 1)
    }

    /// Forgets what was served: every sequence starts again from its first recording (`POST /__loupe/reset`).
    package mutating func reset() {
        for index in servedCounts.indices { servedCounts[index] = 0 }
    }

    private mutating func add(_ request: ServeRequest, served: Int) -> Int {
        let index = requests.count
        requests.append(request)
        servedCounts.append(served)
        byKey[request.key, default: []].append(index)
        byPath[request.path, default: []].append(index)
        return index
    }

    /// The recording closest to `live`: among those with its path (any method), the one passing the most criteria,
    /// the earliest between equals; else among those with its method, the longest shared path prefix.
    private func explain(_ live: ServeRequest) -> ServeMiss {
        let miss = { (reason: ServeMiss.Reason) in ServeMiss(method: live.method, pathAndQuery: live.pathAndQuery, reason: reason) }
        guard !requests.isEmpty else { return miss(.empty) }
        if let samePath = byPath[live.path] {
            var best: ServeMiss.Closest?
            var bestScore = -1
            for index in samePath.prefix(Self.explainedCandidates) {
                let candidate = closest(index, live)
                let score = candidate.verdicts.count { $0.matches }
                if score > bestScore { (best, bestScore) = (candidate, score) }
            }
            return miss(.noMatch(best))
        }
        var best: Int?
        var bestShared = -1
        for index in requests.indices where requests[index].method == live.method {
            let shared = Self.sharedPrefix(requests[index].path, live.path)
            if shared > bestShared { (best, bestShared) = (index, shared) }
        }
        return miss(.noMatch(best.map { closest($0, live) }))
    }

    private func closest(_ index: Int, _ live: ServeRequest) -> ServeMiss.Closest {
        let recorded = requests[index]
        return ServeMiss.Closest(number: index + 1, method: recorded.method, pathAndQuery: recorded.pathAndQuery,
                                 verdicts: matching.verdicts(live: live, recorded: recorded))
    }

    private static func sharedPrefix(_ a: String, _ b: String) -> Int {
        zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }
}
