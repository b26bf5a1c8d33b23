import Foundation
@testable import loupe
import LoupeApproval
import LoupeQuery
import LoupeTrace
import Synchronization
import Testing

/// `loupe mcp`'s own JSON-RPC 2.0 / MCP server: the lifecycle, the error codes, and cancellation on a real pipe.
@Suite("loupe mcp: the protocol (JSON-RPC 2.0, lifecycle, cancellation)")
struct MCPSessionTests {
    static func line(_ text: String) -> Data { Data(text.utf8) }

    /// The error code of a `.reply` line, nil for a result.
    static func code(_ action: MCPSession.Action) -> Int? {
        guard case .reply(let text) = action, case .object(let message)? = JSONParser.parse(Data(text.utf8)),
              case .object(let error)? = message["error"], case .number(let code)? = error["code"] else { return nil }
        return Int(code.text)
    }

    static func initialize(_ version: String) -> Data {
        line(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"\#(version)","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
    }

    @Test("initialize agrees a version it speaks, or offers its newest; requests before it are refused, ping is not")
    func lifecycle() throws {
        var session = MCPSession()
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#))) == -32600)
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)) == .reply(#"{"jsonrpc":"2.0","id":"p","result":{}}"#))
        guard case .reply(let text) = session.receive(Self.initialize("2025-06-18")) else { Issue.record("no answer"); return }
        #expect(text.contains(#""protocolVersion":"2025-06-18""#) && text.contains(#""serverInfo":{"name":"loupe""#))
        #expect(text.contains(#""tools":{"listChanged":false}"#))
        #expect(session.version == "2025-06-18")
        #expect(Self.code(session.receive(Self.initialize("2025-06-18"))) == -32600)
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)) == .none)
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#))
                == .run(id: .number(JSONNumber("2")), .listTools))

        var newer = MCPSession()
        _ = newer.receive(Self.initialize("2099-01-01"))
        #expect(newer.version == MCPSession.versions.last)
    }

    @Test("each malformed message gets its JSON-RPC code, and the id when it could be read")
    func errors() {
        var session = MCPSession()
        _ = session.receive(Self.initialize("2025-11-25"))
        #expect(Self.code(session.receive(Self.line("{not json"))) == -32700)
        #expect(Self.code(session.receive(Self.line(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#))) == -32600)
        #expect(Self.code(session.receive(Self.line(#"{"id":3,"method":"ping"}"#))) == -32600)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#))) == -32600)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":4,"method":7}"#))) == -32600)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":5,"method":"no/such"}"#))) == -32601)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":42}}"#))) == -32602)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}"#))) == -32602)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","arguments":"y"}}"#))) == -32602)
        #expect(Self.code(session.receive(Self.line(#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{}}"#))) == -32602)
        guard case .reply(let text) = session.receive(Self.line(#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#)) else { return }
        #expect(text.hasPrefix(#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"#))
        // A response (this server sends no requests) and an unknown notification need no answer.
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","id":1,"result":{}}"#)) == .none)
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#)) == .none)
        #expect(session.receive(Self.line(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1"}}"#))
                == .cancel(id: .string("r1")))
    }

    /// Asks nobody: waits until the request is cancelled, then refuses.
    final class Waiting: AgentApprover {
        let asked = Mutex(0)
        let (never, keep) = AsyncStream<Void>.makeStream()
        func approve(_ request: AgentRequest) async -> Bool {
            asked.withLock { $0 += 1 }
            for await _ in never {}
            return false
        }
    }

    @Test("a request the client cancels is stopped and answered never; the server goes on and ends with its input")
    func cancellation() async throws {
        let (store, path, folder) = try AgentToolsTests.store()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let person = Waiting()
        let actions = AgentActions(approver: person, replayer: StoreReplayer(path: path), log: { _ in })
        let server = AgentServer(AgentToolbox(store: store, storePath: path, rulesPath: nil, actions: actions))
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        #expect(pipe(&input) == 0 && pipe(&output) == 0)
        let transport = LineTransport(input: input[0], output: output[1])
        let serving = Task { await server.serve(transport) }
        func send(_ text: String) {
            let line = Array((text + "\n").utf8)
            _ = line.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        }
        send(String(decoding: Self.initialize("2025-06-18"), as: UTF8.self))
        send(##"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"replay_exchange","arguments":{"id":"#1"}}}"##)
        while person.asked.withLock({ $0 }) == 0 { await Task.yield() }
        send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}"#)
        send(#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        close(input[1])
        await serving.value
        close(output[1])
        let handle = FileHandle(fileDescriptor: output[0], closeOnDealloc: true)
        let lines = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last == #"{"jsonrpc":"2.0","id":3,"result":{}}"#)
        #expect(!lines.contains { $0.contains(#""id":2"#) })
        #expect(try store.count() == 3)
        close(input[0])
    }
}
