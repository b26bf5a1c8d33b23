import Foundation

/// Agent requests waiting for a person, as files beside the store: `STORE.agents/ID.request` (what the agent asks,
/// written by `loupe mcp`) and `ID.decision` (`approved` or `refused`, written by `loupe approve`). Files, not a
/// socket: the two processes need not run at once, nothing listens on a port, and the directory is 0700 and each
/// file 0600, so only the store's owner can ask or answer. An agent talks only to `loupe mcp` over its protocol and
/// has no way to write a decision.
package struct AgentQueue: Sendable {
    /// One waiting request as stored.
    package struct Entry: Codable, Sendable, Hashable {
        package var origin: String
        /// The tool the agent called (`replay_exchange`, `add_rule`); absent in requests filed before it was kept.
        package var tool: String?
        package var summary: String
        package var detail: [String]
        /// The asking server's process: a request whose server is gone is not shown (nobody waits for it).
        package var pid: Int32
        package var createdAt: Date
    }

    package let directory: String

    package init(storePath: String) { directory = storePath + ".agents" }

    /// Files the request and returns its id.
    package func submit(_ request: AgentRequest, pid: Int32 = getpid(), now: Date = Date()) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let id = UUID().uuidString.lowercased()
        let entry = Entry(origin: request.origin, tool: request.tool, summary: request.summary, detail: request.detail, pid: pid, createdAt: now)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try write(try encoder.encode(entry), to: id + ".request")
        return id
    }

    /// The person's decision on `id`, or nil while there is none.
    package func decision(_ id: String) -> Bool? {
        guard let data = FileManager.default.contents(atPath: path(id + ".decision")) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "approved"
    }

    /// Records the person's decision on `id`.
    package func decide(_ id: String, approved: Bool) throws {
        try write(Data((approved ? "approved\n" : "refused\n").utf8), to: id + ".decision")
    }

    /// Removes `id`'s files: the asker is done with it (decided, timed out or gone).
    package func withdraw(_ id: String) {
        try? FileManager.default.removeItem(atPath: path(id + ".request"))
        try? FileManager.default.removeItem(atPath: path(id + ".decision"))
    }

    /// The requests waiting for a decision, oldest first; those whose server has exited are left out.
    package func pending() -> [(id: String, entry: Entry)] {
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
