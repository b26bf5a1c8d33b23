import Foundation

/// Agent requests waiting for a person, as files beside the store: `STORE.agents/ID.request` (what the agent asks,
/// written by `loupe mcp`) and `ID.decision` (`approved` or `refused`, written by `loupe approve`). Files, not a
/// socket: the two processes need not run at once, nothing listens on a port, and the directory is 0700 and each
/// file 0600, so only the store's owner can ask or answer. An agent talks only to `loupe mcp` over its protocol and
/// has no way to write a decision.
struct AgentQueue: Sendable {
    /// One waiting request as stored.
    struct Entry: Codable, Sendable, Equatable {
        var origin: String
        var summary: String
        var detail: [String]
        /// The asking server's process: a request whose server is gone is not shown (nobody waits for it).
        var pid: Int32
        var createdAt: Date
    }

    let directory: String

    init(storePath: String) { directory = storePath + ".agents" }

    /// Files the request and returns its id.
    func submit(_ request: AgentRequest, pid: Int32 = getpid(), now: Date = Date()) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let id = UUID().uuidString.lowercased()
        let entry = Entry(origin: request.origin, summary: request.summary, detail: request.detail, pid: pid, createdAt: now)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try write(try encoder.encode(entry), to: id + ".request")
        return id
    }

    /// The person's decision on `id`, or nil while there is none.
    func decision(_ id: String) -> Bool? {
        guard let data = FileManager.default.contents(atPath: path(id + ".decision")) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "approved"
    }

    /// Records the person's decision on `id`.
    func decide(_ id: String, approved: Bool) throws {
        try write(Data((approved ? "approved\n" : "refused\n").utf8), to: id + ".decision")
    }

    /// Removes `id`'s files: the asker is done with it (decided, timed out or gone).
    func withdraw(_ id: String) {
        try? FileManager.default.removeItem(atPath: path(id + ".request"))
        try? FileManager.default.removeItem(atPath: path(id + ".decision"))
    }

    /// The requests waiting for a decision, oldest first; those whose server has exited are left out.
    func pending() -> [(id: String, entry: Entry)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var found: [(id: String, entry: Entry)] = []
        for name in names where name.hasSuffix(".request") {
            let id = String(name.dropLast(".request".count))
            // A request file is small; a larger one was not written by `loupe mcp`.
            guard decision(id) == nil, let data = FileManager.default.contents(atPath: path(name)), data.count < 1_048_576,
                  let entry = try? decoder.decode(Entry.self, from: data), kill(entry.pid, 0) == 0 || errno == EPERM
            else { continue }
            found.append((id, entry))
        }
        return found.sorted { $0.entry.createdAt < $1.entry.createdAt }
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// Writes `data` whole or not at all (a rename), owner-only.
    private func write(_ data: Data, to name: String) throws {
        let temporary = path(".\(name).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        guard rename(temporary, path(name)) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path(name)])
        }
    }
}

/// Asks through the ``AgentQueue``: files the request, waits for `loupe approve` (or the TUI) to decide, and
/// refuses when nobody has answered within `patience`, withdrawing the request so it cannot be approved later.
struct QueueApprover: AgentApprover {
    let queue: AgentQueue
    var patience: Duration = .seconds(600)
    var poll: Duration = .milliseconds(200)
    var clock: any Clock<Duration> = ContinuousClock()
    let log: @Sendable (String) -> Void

    func approve(_ request: AgentRequest) async -> Bool {
        let id: String
        do {
            id = try queue.submit(request)
        } catch {
            log("loupe mcp: could not file the request for approval (\(error.localizedDescription)); refused")
            return false
        }
        defer { queue.withdraw(id) }
        log("loupe mcp: waiting for approval (run `loupe approve` on this store): \(request.summary)")
        var waited: Duration = .zero
        while waited < patience {
            if let decided = queue.decision(id) { return decided }
            do {
                try await clock.sleep(for: poll)
            } catch {
                return false  // the call was cancelled: nothing is done
            }
            waited += poll
        }
        log("loupe mcp: nobody answered within \(patience); refused: \(request.summary)")
        return queue.decision(id) ?? false
    }
}
