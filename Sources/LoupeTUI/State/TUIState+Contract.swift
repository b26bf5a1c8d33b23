import Foundation
import LoupeQuery
import LoupeTrace

extension TUIState {
    /// Makes `filter` the session's, with the contract's answers in place of the terms it answers (`~drift`, and
    /// `~op` by the contract's path templates); the parsed filter is kept to be answered again as checks go on.
    mutating func setFilter(_ filter: TraceFilter?) {
        session.contractFilter = nil
        session.filter = filter
        guard let filter, let contract else { return }
        let (resolved, version) = contract.resolve(filter)
        guard resolved != filter else { return }
        session.filter = resolved
        session.contractFilter = .init(parsed: filter, resolved: resolved, version: version)
    }

    /// Answers the filter's contract terms again when exchanges were checked since, reloading the lists when the
    /// answer changed. A filter a screen set since (a breaker's history) is left alone.
    mutating func answerContractFilter(_ environment: TUIEnvironment) {
        guard let contract, let asked = session.contractFilter, session.filter == asked.resolved,
              contract.version != asked.version else { return }
        let (resolved, version) = contract.resolve(asked.parsed)
        session.contractFilter = .init(parsed: asked.parsed, resolved: resolved, version: version)
        guard resolved != asked.resolved else { return }
        session.filter = resolved
        refreshQuery(environment)
    }
}
