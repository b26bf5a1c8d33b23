import Foundation
import Loupe
import LoupeContract
import LoupeFilter
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// `loupe tui --openapi`: rows that drift from the contract are marked, the detail's Contract tab lists the findings
/// above the body, `~drift` and `~op` are answered by the contract, and exchanges that arrive are checked as they
/// come (on the checks' own thread, awaited here through `settle`).
@Suite struct ContractViewTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Items, version: "1"}
        servers: [{url: "https://api.example.com"}]
        paths:
          /items/{id}:
            get:
              operationId: getItem
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses:
                "200":
                  description: an item
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [name]
                        properties:
                          name: {type: string}
                          price: {type: number}
        """

    static func contract() throws -> ContractChecks {
        ContractChecks(contract: try Contract(data: Data(document.utf8)))
    }

    /// #1 fits, #2 has a null price, #3 answers a status the contract does not list, #4 matches no operation.
    static let exchanges = [
        Fixture.exchange(1, responseBody: Fixture.body(#"{"name":"pen","price":1.5}"#)),
        Fixture.exchange(2, responseBody: Fixture.body(#"{"name":"ink","price":null}"#)),
        Fixture.exchange(3, status: 404, responseBody: Fixture.body(#"{"error":"gone"}"#)),
        Fixture.exchange(4, url: "https://api.example.com/other", responseBody: Fixture.body("{}")),
    ]

    static func app(_ store: any TraceStore, contract: ContractChecks?, width: Int = 80) -> (TUIApp, InMemoryTerminal) {
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, timeZone: .gmt,
                         keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: width, height: 24),
                         now: { Fixture.clock.now }, wallClock: { Fixture.epoch.addingTimeInterval(20) },
                         contract: contract)
        let screen = InMemoryTerminal(width: width, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    private func filter(_ text: String, _ app: TUIApp, _ screen: InMemoryTerminal) {
        screen.press("f")
        screen.press(.ctrl("u"))
        screen.type(text)
        screen.press(.enter)
        app.turn(on: screen)
    }

    private func shown(_ app: TUIApp) -> [UUID] { app.state.exchanges.window.rows.map(\.id) }

    @Test func driftingRowsAreMarked() async throws {
        let store = try Fixture.store(Self.exchanges)
        let checks = try Self.contract()
        try checks.catchUpAll(store: store)
        let (app, screen) = Self.app(store, contract: checks)
        ScreenSnapshot.check(screen, "contract-list")
        let marked = screen.lines.filter { $0.dropFirst().hasPrefix(ExchangeColumns.driftGlyph) }
        #expect(marked.count == 2, "#2 and #3 drift; #4 matches no operation, which is not drift")
        await app.settle()
    }

    @Test func theContractTabListsFindingsAboveTheBody() async throws {
        let store = try Fixture.store(Self.exchanges)
        let (app, screen) = Self.app(store, contract: try Self.contract())
        // Following: #4 is selected; #2 is two rows up.
        screen.press("k", "k", .enter)
        app.turn(on: screen)
        screen.type(":tab contract")
        screen.press(.enter)
        app.turn(on: screen)
        #expect((app.state.top as? DetailScreen)?.tab == .contract)
        ScreenSnapshot.check(screen, "detail-contract")
        #expect(screen.text.contains("$.price: expected number, got null"))
        await app.settle()
    }

    @Test func withoutAContractThereIsNoContractTab() throws {
        let store = try Fixture.store(Self.exchanges)
        let (app, screen) = Self.app(store, contract: nil)
        screen.press(.enter)
        app.turn(on: screen)
        screen.type(":tab contract")
        screen.press(.enter)
        app.turn(on: screen)
        #expect((app.state.top as? DetailScreen)?.tab == .request)
        #expect(app.state.status?.text.contains("tab: expected one of") == true)
    }

    @Test func driftAndOpAreAnsweredByTheContract() async throws {
        let store = try Fixture.store(Self.exchanges)
        let checks = try Self.contract()
        try checks.catchUpAll(store: store)
        let (app, screen) = Self.app(store, contract: checks)
        filter("~drift", app, screen)
        #expect(shown(app) == [Fixture.id(2), Fixture.id(3)])
        filter("~drift status", app, screen)
        #expect(shown(app) == [Fixture.id(3)])
        filter("~drift response-body.type", app, screen)
        #expect(shown(app) == [Fixture.id(2)])
        filter("!~drift", app, screen)
        #expect(shown(app) == [Fixture.id(1), Fixture.id(4)])
        // Recorded as op1…op4: the contract's path template names #1–#3 getItem.
        filter("~op getItem", app, screen)
        #expect(shown(app) == [Fixture.id(1), Fixture.id(2), Fixture.id(3)])
        filter("~op op4 | ~drift status", app, screen)
        #expect(shown(app) == [Fixture.id(3), Fixture.id(4)])
        #expect(app.state.session.filterText == "~op op4 | ~drift status")
        await app.settle()
    }

    @Test func driftWithoutAContractIsOneError() throws {
        let store = try Fixture.store(Self.exchanges)
        let (app, screen) = Self.app(store, contract: nil)
        filter("~drift", app, screen)
        #expect(app.state.status?.isError == true)
        #expect(app.state.status?.text == "filter: " + TraceFilter.contractNeeded)
        #expect(app.state.session.filter == nil)
        #expect(shown(app).count == 4)
    }

    @Test func arrivalsAreCheckedAsTheyCome() async throws {
        let store = try Fixture.store([Self.exchanges[0]])
        let (app, screen) = Self.app(store, contract: try Self.contract())
        filter("~drift", app, screen)
        await app.settle()
        app.refresh()
        app.turn(on: screen)
        #expect(shown(app).isEmpty)
        try store.write([Self.exchanges[1]])
        // The poll sees the row; the checks run on their thread; the next poll answers `~drift` again.
        app.refresh()
        await app.settle()
        app.refresh()
        app.turn(on: screen)
        #expect(shown(app) == [Fixture.id(2)])
        #expect(screen.lines.contains { $0.dropFirst().hasPrefix(ExchangeColumns.driftGlyph) })
    }

    @Test func graphQLRowsShowTheirOperationAndContractRowsTheirOperationID() throws {
        var query = Fixture.exchange(5, method: "POST", url: "https://api.example.com/graphql")
        query.operation = "query GetUser"
        var batch = Fixture.exchange(6, method: "POST", url: "https://api.example.com/graphql")
        batch.operation = "batch: query A, mutation B"
        var plain = Fixture.exchange(7, url: "https://api.example.com/queryable")
        plain.operation = "queryable"
        let store = try Fixture.store([query, batch, plain])
        let (_, screen) = Self.app(store, contract: nil, width: 120)
        ScreenSnapshot.check(screen, "list-graphql-operations")
        #expect(screen.lines.contains { $0.contains("/graphql") && $0.contains("query GetUser") })
        #expect(screen.lines.contains { $0.contains("/graph") && $0.contains("batch: query A, mutation B") })
        #expect(screen.lines.first { $0.contains("/queryable") }?.components(separatedBy: "queryable").count == 2,
                "an operation that only starts like a GraphQL word is not one")
        // With the contract, a row the contract's templates match shows the operationId.
        let checks = try Self.contract()
        let items = try Fixture.store(Self.exchanges)
        // At 80 columns the path is cut for the name (one snapshot of it: contract-list).
        try checks.catchUpAll(store: items)
        let (_, withContract) = Self.app(items, contract: checks)
        #expect(withContract.lines.filter { $0.contains("getItem") }.count == 3)
    }

    @Test func theMetricsScreenGroupsByTheContractsOperations() throws {
        let store = try Fixture.store(Self.exchanges)
        let (app, screen) = Self.app(store, contract: try Self.contract(), width: 120)
        screen.press("4")
        app.turn(on: screen)
        for _ in 0..<10 where app.state.hasDeferredWork { app.turn(on: screen) }
        // #1–#3 were recorded as op1…op3: the contract's path template names them getItem; #4 keeps its own name.
        #expect(screen.lines.contains { $0.contains("op getItem") }, "\(screen.text)")
        #expect(!screen.text.contains("op op1") && !screen.text.contains("op op3"))
        #expect(screen.text.contains("op op4"))
    }

    @Test func aFilterAskingTheContractPrintsAsTyped() throws {
        let parsed = try TraceFilter.parse("~drift & ~drift status")
        #expect(parsed == .and(.drift(nil), .drift("status")))
        #expect(parsed.description == "~drift & ~drift status")
        #expect(parsed.needsContract)
        #expect(try TraceFilter.parse("~op getItem").needsContract == false)
    }
}
