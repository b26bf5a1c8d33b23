import Foundation
import HTTPTypes
import Logging
import Loupe
@testable import LoupeRules
import LoupeTesting
import LoupeTrace
import NIOCore
import NIOPosix
import Synchronization
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

    /// `count` never-matching rules named `prefix 0`, `prefix 1`, …
    static func rules(_ count: Int, _ prefix: String) throws -> [Rule] {
        try (0..<count).map { try Rule(name: "\(prefix) \($0)", match: "~u never-\($0)", action: .fault(.status(503))) }
    }

    /// Issue 44.3: a put of a thousand rules rebuilt the index a thousand times (quadratic in rules).
    @Test func aPutOfAThousandRulesRebuildsTheIndexOnce() throws {
        let book = RuleBook()
        let origin = RuleOrigin.viewer("v #1")
        let before = book.indexBuilds
        #expect(LinkRuleCommand.put(try Self.rules(1000, "a")).apply(to: book, origin: origin) == nil)
        #expect(book.indexBuilds - before == 1)
        #expect(book.entries.count == 1000)
        // A rules file reloaded is one change too.
        let file = RuleOrigin.file("/tmp/r.toml")
        let reloaded = book.indexBuilds
        book.replaceAll(from: file, with: try Self.rules(200, "f"))
        #expect(book.indexBuilds - reloaded == 1)
    }

    /// Issue 44.3: a viewer may hold no more rules than a rules file may (two puts of 1,000 made 2,000).
    @Test func aViewerMaySetNoMoreRulesThanAFileHolds() throws {
        let book = RuleBook()
        let origin = RuleOrigin.viewer("v #1")
        #expect(LinkRuleCommand.put(try Self.rules(1000, "a")).apply(to: book, origin: origin) == nil)
        let refused = LinkRuleCommand.put(try Self.rules(1000, "b")).apply(to: book, origin: origin)
        #expect(refused?.contains("more than the 1000 a viewer may set") == true)
        #expect(book.entries.count == 1000)
        // Replacing its own rules by name stays within the bound.
        #expect(LinkRuleCommand.put(try Self.rules(10, "a")).apply(to: book, origin: origin) == nil)
        let huge = LinkRuleCommand(op: .put, rules: String(repeating: "#", count: RuleFields.maxBytes + 1))
        #expect(huge.apply(to: book, origin: origin)?.contains("more than 1.0 MiB") == true)
    }

    /// Issue 44.3: commands were applied on the event loop the app's HTTP client shares; now on a queue of their own.
    @Test func theViewersCommandsRunOffTheEventLoops() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let logs = LinkLoopbackTests.LogBox()
        let book = RuleBook(maxHold: .seconds(60))
        let onLoop = Mutex<[Bool]>([])
        book.onChange { _ in onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) } }
        var configuration = LinkLoopbackTests.configuration(logs)
        configuration.rules = book
        let link = try LoupeLink(try harness.link(), configuration: configuration)
        #expect(await LinkLoopbackTests.eventually { harness.listener.rulesApps.count == 1 })
        #expect(harness.listener.send(.put(try Self.rules(3, "x"))))
        #expect(await LinkLoopbackTests.eventually { book.entries.count == 3 })
        let seen = onLoop.withLock { $0 }
        #expect(!seen.isEmpty && !seen.contains(true), "changes made on an event loop: \(seen)")
        await harness.listener.stop()
        await link.finish()
    }

    /// What reached the server: the request and its body.
    final class Recording: ClientTransport {
        let seen = Mutex<[(HTTPRequest, Data?)]>([])
        func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
            seen.withLock { $0.append((request, body?.bufferedData)) }
            context.attempt?.markRequestSent()
            return RawResponse(status: .ok)
        }
    }

    /// Issue 43.5: a held request reached the viewer with the app's real token; now it is sent redacted, the
    /// viewer's edit of the redacted form goes out with the app's own values, and a marker the app has no value
    /// for is refused (the request goes on unchanged, and its event says why).
    @Test func heldRequestsAreSentRedactedAndTheAppPutsItsValuesBack() async throws {
        let book = RuleBook(maxHold: .seconds(60))
        book.put(try Rule(name: "hold", match: "~op createOrder", action: .breakpoint(RuleBreakpoint())), origin: .code)
        let server = Recording()
        let client = Client(baseURL: URL(string: "http://api.test")!, transport: RulesTransport(wrapping: server, book: book))
        func send() -> Task<Void, any Error> {
            Task {
                var request = HTTPRequest(method: .post, scheme: "http", authority: "api.test", path: "/orders?api_key=k-123456&n=1")
                request.headerFields[.authorization] = "Bearer demo-token-abcdef"
                request.headerFields[.contentType] = "application/json"
                _ = try await client.execute(request, body: .data(Data(#"{"password":"hunter22","qty":1}"#.utf8)),
                                             options: RequestOptions(operation: "createOrder"))
            }
        }
        // The edit the viewer makes: quantity 1 → 42 in the redacted text, markers left in place.
        let first = send()
        #expect(await LinkLoopbackTests.eventually { book.held.count == 1 })
        let state = LinkRuleState(book)
        let shown = try #require(state.held.first)
        let wire = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        #expect(!wire.contains("demo-token") && !wire.contains("k-123456") && !wire.contains("hunter22"))
        let body = String(decoding: shown.body ?? Data(), as: UTF8.self).replacingOccurrences(of: "\"qty\":1", with: "\"qty\":42")
        let edit = HoldEdit(method: "POST", url: shown.url, headers: shown.headers, body: Data(body.utf8))
        #expect(LinkRuleCommand.decide(shown.id, .edit(edit)).apply(to: book, origin: .viewer("v")) == nil)
        try await first.value
        let (sent, sentBody) = try #require(server.seen.withLock { $0.first })
        #expect(sent.headerFields[.authorization] == "Bearer demo-token-abcdef")
        #expect(sent.path == "/orders?api_key=k-123456&n=1")
        #expect(sentBody == Data(#"{"password":"hunter22","qty":42}"#.utf8))

        // A marker where the app has no value: refused, and the request goes on as the app made it.
        let second = send()
        #expect(await LinkLoopbackTests.eventually { book.held.count == 1 })
        let again = try #require(LinkRuleState(book).held.first)
        let forged = HoldEdit(headers: again.headers + [TraceHeader(name: "X-Api-Key", value: RedactionPolicy.marker)])
        #expect(LinkRuleCommand.decide(again.id, .edit(forged)).apply(to: book, origin: .viewer("v")) == nil)
        try await second.value
        let (unchanged, _) = try #require(server.seen.withLock { $0.last })
        #expect(unchanged.headerFields[HTTPField.Name("X-Api-Key")!] == nil)
        #expect(unchanged.headerFields[.authorization] == "Bearer demo-token-abcdef")
    }

    /// A decision that comes after the hold ended is not applied, and the app says so.
    @Test func aLateDecisionIsRefusedAndSaid() {
        let late = LinkRuleCommand.decide(UUID(), .edit(HoldEdit())).apply(to: RuleBook(), origin: .viewer("v"))
        #expect(late?.contains("no longer held") == true)
    }
}

/// Protocol 2 carries rules as JSON, read by the rules' own field reader: an app that links compiles no TOML parser.
@Suite struct LinkRulesJSONTests {
    static let rules: [Rule] = [
        try! Rule(name: "getUser down", match: "~op getUser", action: .fault(.status(503)),
                  limits: RuleLimits(times: 3, probability: 0.25)),
        try! Rule(name: "canned", match: "~m GET", action: .mock(RuleMock(status: 200, body: Data("ok".utf8)))),
    ]

    @Test func aPutAndAStateCarryAJSONArrayOfRules() throws {
        let put = try #require(LinkRuleCommand.put(Self.rules).rules)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(put.utf8)) as? [[String: Any]], "\(put)")
        #expect(array.map { $0["name"] as? String } == ["getUser down", "canned"])
        #expect((array[0]["fault"] as? [String: Any])?["status"] as? Int == 503)
        let book = RuleBook()
        #expect(LinkRuleCommand.put(Self.rules).apply(to: book, origin: .viewer("v")) == nil)
        #expect(book.entries.map(\.rule) == Self.rules)
        let state = LinkRuleState(book)
        #expect(try JSONSerialization.jsonObject(with: Data(state.rules.utf8)) is [Any])
        #expect(try RuleFields.rules(json: state.rules) == Self.rules)
    }

    @Test func aProtocolOnePutInTOMLIsRefusedInWords() {
        let toml = "[[rule]]\nname = \"a\"\nmatch = \"~u .\"\nfault = { status = 503 }\n"
        let book = RuleBook()
        #expect(LinkRuleCommand(op: .put, rules: toml).apply(to: book, origin: .viewer("v")) == "rules from the viewer: not a JSON array of rules")
        #expect(book.entries.isEmpty)
    }

    @Test(arguments: [
        (#"[{"name":"a","match":"~u .","fault":{"status":700}}]"#, "status from 100 to 599"),
        (#"[{"name":"a","match":"~u .","times":1.5,"fault":{"status":503}}]"#, "times must be a whole number"),
        (#"[{"name":"a","name":"b","match":"~u .","fault":{"status":503}}]"#, "not a JSON array"),
        (#"[{"name":"a","match":"~u .","mock":{"headers":{"x":"1\r\nevil: 1"}}}]"#, "must be a header name"),
        (#"[{"name":"a","match":"~c 5xx","fault":{"status":503}}]"#, "~c is about the response"),
        (#"[1]"#, "each rule must be"),
        (#"{"rules":[]}"#, "not a JSON array"),
    ])
    func aHostileViewersRulesAreRefusedWhole(json: String, words: String) {
        let book = RuleBook()
        let refused = LinkRuleCommand(op: .put, rules: json).apply(to: book, origin: .viewer("v"))
        #expect(refused?.contains(words) == true, "\(refused ?? "accepted")")
        #expect(book.entries.isEmpty)
    }
}
