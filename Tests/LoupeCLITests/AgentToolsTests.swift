import Foundation
import Loupe
import LoupeApproval
import LoupeCompare
import LoupeQuery
import LoupeTesting
@testable import loupe
import LoupeTrace
import Synchronization
import Testing

/// `loupe mcp`'s tools on a real SQLite store, its bounded transport, its arguments and the approval queue.
@Suite("loupe mcp: tools, arguments, transport, approval")
struct AgentToolsTests {
    static func store() throws -> (SQLiteTraceStore, String, String) {
        let folder = NSTemporaryDirectory() + "loupe-mcp-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/traces.sqlite"
        let store = try SQLiteTraceStore(path: path)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let body = String(repeating: "é", count: 100)  // 200 bytes, two per character
        try store.write([
            TraceExchange(id: UUID(), operation: "getUser", method: "GET", url: "https://api.example.test/users/1",
                          startedAt: start, endedAt: start + 0.5, outcome: .success, status: 200,
                          responseBody: TraceBody(data: Data(body.utf8), size: 200, isTruncated: false),
                          attempts: [
                            TraceAttempt(number: 1, startedAt: start, endedAt: start + 0.1, status: 503, circuitState: "closed",
                                         retryReason: "status 503", retryDelay: 0.2),
                            TraceAttempt(number: 2, startedAt: start + 0.3, endedAt: start + 0.5, status: 200, circuitState: "closed"),
                          ]),
            TraceExchange(id: UUID(), operation: "search", method: "GET", url: "https://api.example.test/find?q=a.b",
                          startedAt: start + 1, endedAt: start + 1.1, outcome: .success, status: 200),
            TraceExchange(id: UUID(), operation: "search", method: "GET", url: "https://api.example.test/find?q=axb",
                          startedAt: start + 2, endedAt: start + 2.1, outcome: .httpError, status: 500),
        ])
        return (store, path, folder)
    }

    static func text(_ result: AgentToolResult) -> String { result.text }

    /// A tool call's arguments as a client would send them.
    static func arguments(_ json: String) -> JSONObject? {
        guard case .object(let object)? = JSONParser.parse(Data(json.utf8)) else { return nil }
        return object
    }

    final class Recorder: AgentApprover {
        let answer: Bool
        let asked = Mutex<[AgentRequest]>([])
        init(answer: Bool) { self.answer = answer }
        func approve(_ request: AgentRequest) async -> Bool {
            asked.withLock { $0.append(request) }
            return answer
        }
    }

    @Test("list_exchanges: newest first, filtered, a limit out of range refused with the range")
    func listing() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let all = try JSONSerialization.jsonObject(with: Data(Self.text(try await toolbox.call("list_exchanges", nil)).utf8)) as? [String: Any]
        let sequences = (all?["exchanges"] as? [[String: Any]])?.compactMap { $0["sequence"] as? Int }
        #expect(sequences == [3, 2, 1])
        let errors = Self.text(try await toolbox.call("list_exchanges", Self.arguments(#"{"filter": "~c 5xx", "order": "oldest"}"#)))
        #expect(errors.contains("axb") && !errors.contains("users/1"))
        let refused = try await toolbox.call("list_exchanges", Self.arguments(#"{"limit": 1000000}"#))
        #expect(refused.isError == true)
        #expect(Self.text(refused) == "limit: expected a whole number from 1 to 1000, got '1000000'")
        let fraction = try await toolbox.call("list_exchanges", Self.arguments(#"{"limit": 2.5}"#))
        #expect(fraction.isError == true)
        #expect(try await toolbox.call("list_exchanges", Self.arguments(#"{"limit": 2.0}"#)).isError != true)
        let typo = try await toolbox.call("list_exchanges", Self.arguments(#"{"limt": 2}"#))
        #expect(Self.text(typo).hasPrefix("unknown argument \"limt\""))
    }

    @Test("search takes the text literally: a dot is a dot, not any character")
    func literalSearch() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let found = Self.text(try await toolbox.call("search", Self.arguments(#"{"text": "q=a.b"}"#)))
        #expect(found.contains("q=a.b"))
        #expect(!found.contains("q=axb"))
        let quoted = try await toolbox.call("search", Self.arguments(#"{"text": "a\"b\\(c"}"#))
        #expect(quoted.isError != true)
    }

    @Test("get_exchange cuts a body on a character boundary and says what it cut; an unknown id is a tool error")
    func cutting() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let answer = try JSONSerialization.jsonObject(
            with: Data(Self.text(try await toolbox.call("get_exchange", Self.arguments(##"{"id": "#1", "max_body_bytes": 5}"##))).utf8)) as? [String: Any]
        let body = answer?["responseBody"] as? [String: Any]
        #expect(body?["text"] as? String == "éé")
        #expect(body?["size"] as? Int == 200)
        #expect((answer?["cuts"] as? [String])?.first?.hasPrefix("responseBody: the first 5 of 200 stored bytes") == true)
        let missing = try await toolbox.call("get_exchange", Self.arguments(##"{"id": "#99"}"##))
        #expect(missing.isError == true)
        await #expect(throws: JSONRPCError.self) { try await toolbox.call("no_such_tool", nil) }
    }

    @Test("explain_exchange tells each attempt, the retry and its reason, and the ending")
    func story() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let story = Self.text(try await toolbox.call("explain_exchange", Self.arguments(#"{"id": "1"}"#)))
        #expect(story.contains("Attempt 1 (breaker closed): HTTP 503 after 100 ms; retried after waiting 200 ms because status 503."))
        #expect(story.contains("Attempt 2 (breaker closed): HTTP 200 after 200 ms."))
        #expect(story.hasSuffix("It ended with HTTP 200 after 500 ms and 2 attempts."))
    }

    @Test("actions: absent without --allow-actions; a refusal sends nothing and the store gains nothing")
    func actions() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let readOnly = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        #expect(!readOnly.tools.contains(.replayExchange))
        let off = try await readOnly.call("replay_exchange", Self.arguments(##"{"id": "#1"}"##))
        #expect(off.isError == true && Self.text(off) == AgentToolbox.actionsOff)

        let person = Recorder(answer: false)
        let actions = AgentActions(approver: person, replayer: StoreReplayer(path: path), log: { _ in })
        let acting = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: actions)
        #expect(acting.tools.contains(.replayExchange))
        let refused = Self.text(try await acting.call("replay_exchange", Self.arguments(##"{"id": "#1"}"##)))
        #expect(refused == "Refused by the person at the terminal; nothing was sent.")
        #expect(person.asked.withLock { $0 } == [AgentRequest(origin: "agent (loupe mcp)", tool: "replay_exchange",
            summary: "replay #1: GET https://api.example.test/users/1 (1 request)", detail: [])])
        #expect(try store.count() == 3)
    }

    @Test("add_rule: an invalid rule is refused before anyone is asked; a refused one leaves the file byte-identical")
    func addingRules() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rules = folder + "/rules.toml"
        let original = "[[rule]]\nname = \"slow\"\nmatch = \"~d api\"\nfault = { delay_ms = 1000 }\n"
        try original.write(toFile: rules, atomically: true, encoding: .utf8)
        let person = Recorder(answer: false)
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: rules,
                                   actions: AgentActions(approver: person, replayer: StoreReplayer(path: path), log: { _ in }))
        let invalid = Self.text(try await toolbox.call("add_rule", Self.arguments(#"{"rule": "[[rule]]\nname = 3"}"#)))
        #expect(invalid.hasPrefix("The rule was not added"))
        #expect(person.asked.withLock { $0.isEmpty })
        let refused = Self.text(try await toolbox.call("add_rule", Self.arguments(#"{"rule": "[[rule]]\nname = \"down\"\nmatch = \"~d api\"\nfault = { status = 503 }"}"#)))
        #expect(refused.hasPrefix("Refused"), "\(refused)")
        #expect(try String(contentsOfFile: rules, encoding: .utf8) == original)
    }

    @Test("the line reader splits across reads, skips an over-long line keeping at most the limit, and goes on")
    func lines() {
        var reader = LineReader(limit: 8)
        #expect(reader.feed(Array("{\"a\":".utf8)) == [])
        #expect(reader.feed(Array("1}\n{}\n".utf8)) == [.line(Data("{\"a\":1}".utf8)), .line(Data("{}".utf8))])
        #expect(reader.feed(Array("0123456789".utf8)) == [])
        #expect(reader.feed(Array(repeating: UInt8(ascii: "x"), count: 100_000)) == [])
        #expect(reader.feed(Array("yz\n{}\n".utf8)) == [.tooLong(size: 100_012), .line(Data("{}".utf8))])
        #expect(reader.feed(Array("\n  \n".utf8)) == [])
    }

    @Test("the approval queue: filed, decided, read back; a request nobody answers is refused and withdrawn")
    func queue() async throws {
        let folder = NSTemporaryDirectory() + "loupe-queue-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = AgentQueue(storePath: folder + "/traces.sqlite")
        let clock = ManualClock()
        let approver = QueueApprover(queue: queue, patience: .seconds(2), poll: .milliseconds(500), clock: clock, log: { _ in })
        let request = AgentRequest(origin: "agent (loupe mcp)", tool: "replay_exchange", summary: "replay #1: GET https://x/ (1 request)", detail: [])

        let approved = Task { await approver.approve(request) }
        while queue.pending().isEmpty { await Task.yield() }
        let (id, entry) = try #require(queue.pending().first)
        #expect(entry.summary == request.summary)
        let permissions = try FileManager.default.attributesOfItem(atPath: queue.directory)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        try queue.decide(id, approved: true)
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .milliseconds(500))
        #expect(await approved.value)
        #expect(queue.pending().isEmpty)

        let unanswered = Task { await approver.approve(request) }
        for _ in 0..<4 {
            while clock.sleeperCount == 0 { await Task.yield() }
            clock.advance(by: .milliseconds(500))
        }
        #expect(await unanswered.value == false)
        #expect(queue.pending().isEmpty)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: queue.directory))?.isEmpty == true)

        let cancelled = Task { await approver.approve(request) }
        while clock.sleeperCount == 0 { await Task.yield() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
    }

    @Test("compare answers what `loupe compare --json` prints, cut to limit with the whole counts said")
    func comparing() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let answer = try await toolbox.call("compare", Self.arguments(#"{"a": "\#(path)", "a_filter": "~c 2xx", "b_filter": "~c 5xx", "latency": "20%", "alpha": 0.05}"#))
        let command = try CompareCommand.compare(path, nil, filter: nil, filterA: "~c 2xx", filterB: "~c 5xx", baseline: [],
                                                 thresholds: CompareThresholds(latency: 0.2, errorRatePoints: 1, alpha: 0.05))
        #expect(answer == AgentToolResult(text: try Formatting.json(CompareJSON(command))))
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
        #expect(decoded?["totalA"] as? Int == 2 && decoded?["totalB"] as? Int == 1 && decoded?["latencyThreshold"] as? Double == 0.2)
        #expect(decoded?["cut"] == nil)
        let cut = try JSONSerialization.jsonObject(with: Data(Self.text(try await toolbox.call(
            "compare", Self.arguments(#"{"a": "\#(path)", "b": "\#(path)", "limit": 1}"#))).utf8)) as? [String: Any]
        #expect((cut?["operations"] as? [Any])?.count == 1)
        #expect(cut?["cut"] as? String == "listed 1 of 2 operations: raise limit (up to 1000) or narrow the filter")
    }

    @Test("check_contract answers what `loupe check --json` prints for the server's store")
    func checkingContract() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/openapi.json"
        try Data(#"""
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://api.example.test"}],
             "paths": {"/users/{id}": {"get": {"operationId": "getUser", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                       "responses": {"404": {"description": "none"}}}}}}
            """#.utf8).write(to: URL(fileURLWithPath: document))
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let answer = try await toolbox.call("check_contract", Self.arguments(#"{"openapi": "\#(document)"}"#))
        #expect(answer.isError == false)
        let decoded = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
        // `checked` counts the exchanges matched to an operation; the two /find requests match none.
        #expect(decoded?["checked"] as? Int == 1)
        #expect(decoded?["drifting"] as? Int == 1)
        #expect(decoded?["unmatched"] as? Int == 2)
        let operations = decoded?["operations"] as? [[String: Any]]
        #expect(operations?.first?["operation"] as? String == "getUser")
        #expect(((operations?.first?["drift"] as? [[String: Any]])?.first)?["kind"] as? String == "status")
        let filtered = try JSONSerialization.jsonObject(with: Data(Self.text(try await toolbox.call(
            "check_contract", Self.arguments(#"{"openapi": "\#(document)", "filter": "~c 5xx"}"#))).utf8)) as? [String: Any]
        #expect(filtered?["checked"] as? Int == 0 && filtered?["unmatched"] as? Int == 1)
    }

    @Test("compare and check_contract refuse a path that is not a readable regular file, and bad arguments, with -32602")
    func refusedPaths() async throws {
        let (store, path, folder) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let toolbox = AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: nil)
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let unreadable = folder + "/unreadable.json"
        #expect(FileManager.default.createFile(atPath: unreadable, contents: Data("{}".utf8), attributes: [.posixPermissions: 0]))
        func refusal(_ tool: String, _ json: String) async -> String? {
            do {
                _ = try await toolbox.call(tool, Self.arguments(json))
                return nil
            } catch {
                return error.code == -32602 ? error.message : "code \(error.code)"
            }
        }
        #expect(await refusal("compare", #"{"a": "\#(folder)", "b": "\#(path)"}"#) == "compare: a \(folder) is a directory, not a regular file")
        #expect(await refusal("compare", #"{"a": "\#(path)", "b": "\#(fifo)"}"#) == "compare: b \(fifo) is a FIFO (named pipe), not a regular file")
        #expect(await refusal("compare", #"{"a": "\#(path)"}"#) == "compare: give b, or a_filter and b_filter to compare two sets of a's exchanges")
        #expect(await refusal("compare", #"{"a": "\#(path)", "b": "\#(path)", "latency": "2000%"}"#)
                == "compare: latency: expected a percentage from 0% to 1000%, got '2000'")
        #expect(await refusal("compare", #"{"a": "\#(path)", "b": "\#(path)", "baseline": "x"}"#)?.hasPrefix("compare: unknown argument \"baseline\"") == true)
        #expect(await refusal("check_contract", #"{"openapi": "\#(folder)/missing.yaml"}"#)
                == "check_contract: cannot read openapi \(folder)/missing.yaml: No such file or directory")
        if getuid() != 0 {
            #expect(await refusal("check_contract", #"{"openapi": "\#(unreadable)"}"#)
                    == "check_contract: cannot read openapi \(unreadable): Permission denied")
        }
        #expect(await refusal("check_contract", #"{"openapi": "\#(path)", "limit": 0}"#)
                == "check_contract: limit: expected a whole number from 1 to 1000, got '0'")
    }

    @Test("Documentation/Agents.md's tool table names every tool, in the tools' order, and nothing else")
    func documentedTools() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Documentation/Agents.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let named = text.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^\| `([a-z_]+)` \|/) else { return nil }
            return String(match.1)
        }
        #expect(named == AgentTool.allCases.map(\.rawValue))
    }
}
