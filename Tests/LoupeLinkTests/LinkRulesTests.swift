import Foundation
import HTTPTypes
import Logging
import Loupe
import LoupeRules
import LoupeTesting
import LoupeTrace
import NIOCore
import Testing
@testable import LoupeLink

/// Rules over the link: the documented bytes, and a real listener and app on 127.0.0.1 (put a rule, see the app's
/// state come back, a held request continued at once when the viewer goes away).
@Suite(.serialized) struct LinkRulesTests {
    /// Documentation/LinkProtocol.md, "Rules".
    @Test func goldenRuleFrames() throws {
        #expect(LinkFrameCodecTests.hex(try LinkFrameCodec.encode(.rules(.setEnabled(false, "getUser down"))))
            == "00000036447b22656e61626c6564223a66616c73652c226e616d65223a226765745573657220646f776e222c226f70223a22656e61626c65227d")
        #expect(LinkFrameCodecTests.hex(try LinkFrameCodec.encode(.rules(.continueAll)))
            == "00000016447b226f70223a22636f6e74696e75652d616c6c227d")
        var bytes = LinkFrameCodecTests.buffer(hex: "00000016447b226f70223a22636f6e74696e75652d616c6c227d")
        #expect(try LinkFrameCodec.next(from: &bytes) == .rules(.continueAll))
        let state = LinkRuleState(rules: "", hits: [], origins: [], held: [], maxHold: 60)
        var frame = try LinkFrameCodec.encode(.ruleState(state))
        #expect(frame.getInteger(at: 4, as: UInt8.self) == 0x04)
        #expect(try LinkFrameCodec.next(from: &frame) == .ruleState(state))
    }

    @Test func helloAndWelcomeWithoutRulesKeepTheirBytes() throws {
        // Optional members, absent unless set: protocol 1 peers without rules see the same bytes as before.
        #expect(LinkFrameCodecTests.hex(try LinkFrameCodec.encode(.hello(LinkFrameCodecTests.hello))) == LinkFrameCodecTests.helloBytes)
        var hello = LinkFrameCodecTests.hello
        hello.rules = true
        let json = String(decoding: try LinkFrameCodec.encode(.hello(hello)).readableBytesView.dropFirst(5), as: UTF8.self)
        #expect(json.contains("\"rules\":true"))
    }

    @Test func ruleStateFromAnAppThatDidNotOptInIsRefused() {
        var machine = LinkSessionMachine(secret: "s")
        _ = machine.received(.hello(LinkHello(app: "a", executable: "a", host: "h", pid: 1, secret: "s")))
        let state = LinkRuleState(rules: "", hits: [], origins: [], held: [], maxHold: 60)
        guard case .refuse = machine.received(.ruleState(state)) else {
            Issue.record("a rule state from an app without rules must be refused")
            return
        }
    }

    @Test func theViewerSetsRulesSeesHeldRequestsAndItsLeavingReleasesThem() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let logs = LinkLoopbackTests.LogBox()
        let book = RuleBook(maxHold: .seconds(60))
        var configuration = LinkLoopbackTests.configuration(logs)
        configuration.rules = book
        let link = try LoupeLink(try harness.link(), configuration: configuration)
        #expect(await LinkLoopbackTests.eventually { harness.listener.rulesApps.count == 1 })

        let rule = try Rule(name: "hold orders", match: "~op createOrder", action: .breakpoint(RuleBreakpoint()))
        #expect(harness.listener.send(.put([rule])))
        #expect(await LinkLoopbackTests.eventually { book.entries.map(\.rule.name) == ["hold orders"] })
        #expect(await LinkLoopbackTests.eventually { harness.listener.rulesApps.first?.state?.rules.contains("hold orders") == true })

        let server = ScriptedTransport([.status(201)])
        let client = Client(baseURL: URL(string: "http://api.test")!, transport: RulesTransport(wrapping: server, book: book))
        let request = Task {
            try await client.execute(HTTPRequest(method: .post, scheme: "http", authority: "api.test", path: "/orders"),
                                     body: .data(Data("{}".utf8)), options: RequestOptions(operation: "createOrder"))
        }
        #expect(await LinkLoopbackTests.eventually { harness.listener.rulesApps.first?.state?.held.count == 1 })
        #expect(server.requests.isEmpty)

        // The viewer goes away: the app continues what it held at once and drops the viewer's rules.
        let stopped = ContinuousClock.now
        await harness.listener.stop()
        #expect(try await request.value.head.status.code == 201)
        // The issue's 1 s is checked on the real binaries by .ci/e2e-rules.sh (the demo continued it after 14 ms);
        // here, inside the whole suite on 2 cores, the pool alone kept it waiting 1.2–2.5 s twice. Still far below
        // the 60 s hold limit, so a continue that waited for that limit instead fails.
        #expect(ContinuousClock.now - stopped < .seconds(10))
        #expect(book.entries.isEmpty)
        await link.finish()
    }
}
