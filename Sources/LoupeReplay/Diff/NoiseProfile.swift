import LoupeTrace

/// The parts of a response that differ between identical requests (a fresh id, a timestamp), learned the way
/// Diffy does: send the same request again and see what moves.
package struct NoiseProfile: Sendable, Equatable {
    /// Where the runs differed, in the order first seen.
    package private(set) var locations: [DiffLocation] = []

    package init(locations: [DiffLocation] = []) {
        for location in locations where !self.locations.contains(location) { self.locations.append(location) }
    }

    /// Learns from responses to the same request: every location where a run differs from the first.
    /// Runs without a response (transport failures) teach nothing and are skipped.
    package init(learningFrom runs: [TraceExchange], volatileHeaders: Set<String> = HeaderDiff.volatileNames) {
        let answered = runs.filter { $0.status != nil }
        let first = answered.first
        self.init(locations: answered.dropFirst().flatMap { run in
            first.map { ExchangeDiff.differences($0, run, volatileHeaders: volatileHeaders).map(\.location) } ?? []
        })
    }

    /// Whether `location` is, or lies inside, a location seen to change between runs.
    package func covers(_ location: DiffLocation) -> Bool {
        locations.contains { location.isWithin($0) }
    }
}
