import LoupeApproval

extension TUIState {
    /// Shows screen 6 over the exchanges list, read afresh (the requests are files beside the store: nothing to keep).
    mutating func showAgents(_ environment: TUIEnvironment) {
        guard top.keyContext != .agents else { return }
        park()
        popToRoot()
        var context = makeContext(environment)
        push(AgentsScreen(context: &context))
    }

    /// `a` opens the question that approves the selected request; `r` refuses it at once (refusing sends nothing).
    mutating func decideAgentRequest(_ command: Command) -> Bool {
        guard let screen = top as? AgentsScreen else { return false }
        guard let request = screen.selectedRequest else {
            status = .error("\(command.name): no agent request is waiting")
            return true
        }
        if command == .approveAction {
            agentQuestion = AgentQuestion(id: request.id, entry: request.entry)
        } else {
            let what = AgentQuestion(id: request.id, entry: request.entry).what
            status = StatusMessage("refusing \(what)…")
            pendingEffects.append(.decideAgentRequest(id: request.id, approved: false, what: what))
        }
        return true
    }

    /// The answer to an agent request's question: the confirm key approves exactly what it named; any other key
    /// (`n`, Esc, a stray key, a paste) closes it and the request keeps waiting. Either way the question is gone.
    mutating func answerAgentQuestion(_ key: Key, _ question: AgentQuestion) {
        agentQuestion = nil
        guard keymap.command(for: key, in: .confirm) == .confirmReplay else {
            status = StatusMessage("not approved; the request still waits (\(keymap.hint(.refuseAction, in: .agents)) refuses it)")
            return
        }
        status = StatusMessage("approving \(question.what)…")
        pendingEffects.append(.decideAgentRequest(id: question.id, approved: true, what: question.what))
    }
}
