import Foundation
import HTTPTypes
import Loupe
import LoupeFilter
import LoupeQuery
@testable import LoupeTrace
import Testing

/// GraphQL requests named by their operation: POST bodies, GET queries, batches, persisted hashes; and what is not
/// GraphQL stays unnamed.
@Suite struct GraphQLOperationTests {
    static func name(_ body: String, method: String = "POST", url: String = "https://api.example.com/graphql") -> String? {
        GraphQLOperation.name(method: method, url: url, body: body.isEmpty ? nil : Data(body.utf8))
    }

    @Test(arguments: [
        (#"{"query": "query GetUser($id: ID!) { user(id: $id) { name } }", "variables": {"id": 1}}"#, "query GetUser"),
        (#"{"query": "mutation { addUser(name: \"a\") { id } }"}"#, "mutation"),
        (#"{"query": "{ users { id } }"}"#, "query"),
        (##"{"query": "# a comment\n  subscription OnEvent { event }"}"##, "subscription OnEvent"),
        (#"{"query": "query A { a } mutation B { b }", "operationName": "B"}"#, "mutation B"),
        (#"{"query": "fragment F on User { id } query Q { user { ...F } }"}"#, "query Q"),
        (#"[{"query": "query A { a }"}, {"query": "mutation B { b }"}]"#, "batch: query A, mutation B"),
        (#"{"operationName": "GetUser", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"}}}"#, "persisted GetUser"),
        (#"{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"}}}"#, "persisted ecf4edb46db4"),
    ])
    func postBodiesAreNamed(body: String, expected: String) {
        #expect(Self.name(body) == expected)
    }

    @Test func getQueriesAreNamed() {
        let url = "https://api.example.com/graphql?query=query%20Me%20%7B%20me%20%7B%20id%20%7D%20%7D&operationName=Me"
        #expect(Self.name("", method: "GET", url: url) == "query Me")
        #expect(Self.name("", method: "GET", url: "https://api.example.com/search?q=shoes") == nil)
    }

    @Test(arguments: [
        #"{"name": "Ada"}"#, #"{"query": "SELECT * FROM users"}"#, #"{"query": 42}"#, "not json", "[]", #"[{"query": "{ a }"}, 1]"#,
    ])
    func otherBodiesAreNotGraphQL(body: String) {
        #expect(Self.name(body) == nil)
    }

    /// The recorder names only requests the app left with the endpoint's default name.
    @Test func onlyDefaultNamesAreReplaced() {
        let body = Data(#"{"query": "query GetUser { user { id } }"}"#.utf8)
        let url = "https://api.example.com/graphql"
        #expect(PendingExchange.graphQLNamed("POST /graphql", method: "POST", url: url, body: body) == "query GetUser")
        #expect(PendingExchange.graphQLNamed("", method: "POST", url: url, body: body) == "query GetUser")
        #expect(PendingExchange.graphQLNamed("fetchUser", method: "POST", url: url, body: body) == "fetchUser")
        #expect(PendingExchange.graphQLNamed("POST /users", method: "POST", url: url, body: Data(#"{"name": "a"}"#.utf8)) == "POST /users")
    }

    /// The default name is `METHOD /…` byte for byte, whatever the lengths (a short operation, a method longer
    /// than it, a path missing its slash); a GET is looked at only when its URL holds `query`.
    @Test func theDefaultNameIsTheMethodAndAPath() {
        #expect(PendingExchange.isDefaultName("GET /v1/ping", method: "GET"))
        #expect(PendingExchange.isDefaultName("POST /", method: "POST"))
        for operation in ["", "GET", "GET ", "GET v1", "GETX /a", "get /a", "POST /a", "GE /a", "G", "ping GET /a"] {
            #expect(!PendingExchange.isDefaultName(operation, method: "GET"), "\(operation)")
        }
        #expect(!PendingExchange.isDefaultName("GET /a", method: "GETTING"))
        let query = "https://api.example.com/graphql?query=%7B%20me%20%7B%20id%20%7D%20%7D"
        #expect(PendingExchange.graphQLNamed("GET /graphql", method: "GET", url: query, body: nil) == "query")
        #expect(PendingExchange.graphQLNamed("GET /v1/ping", method: "GET", url: "http://h/v1/ping", body: nil) == "GET /v1/ping")
        #expect(PendingExchange.graphQLNamed("PUT /graphql", method: "PUT", url: query, body: nil) == "PUT /graphql")
    }

    /// The byte search the GET check uses, on small (inline) and long strings, at every position.
    @Test func theByteSearchFindsEveryPlacement() {
        let long = String(repeating: "a/", count: 40) + "query=" + String(repeating: "é", count: 20)
        #expect(FilterText.containsBytes(long, "query"))
        #expect(FilterText.containsBytes(long, "éé"))
        #expect(!FilterText.containsBytes(long, "queryx"))
        #expect(FilterText.containsBytes("query", "query") && FilterText.containsBytes("xquery", "query"))
        #expect(FilterText.containsBytes("queryx", "query") && FilterText.containsBytes("abc", ""))
        #expect(!FilterText.containsBytes("quer", "query") && !FilterText.containsBytes("", "q"))
        #expect(!FilterText.containsBytes("qqueryy".uppercased(), "query"))
        // Byte for byte, not by canonical equivalence: a precomposed é is not e and a combining accent.
        #expect(!FilterText.containsBytes("caf\u{E9}", "cafe\u{301}") && FilterText.containsBytes("cafe\u{301}", "cafe"))
    }

    @Test func errorsInAResponseAreFound() {
        func message(_ text: String) -> String? { GraphQLOperation.errorMessage(in: Data(text.utf8)) }
        #expect(message(#"{"data": {"boom": null}, "errors": [{"message": "boom failed", "path": ["boom"]}]}"#) == "boom failed")
        #expect(message(#"[{"data": {}}, {"errors": [{"message": "second"}]}]"#) == "second")
        #expect(message(#"{"data": {"errors": "a field named errors"}}"#) == nil)
        #expect(message(#"{"data": {}, "errors": []}"#) == nil)
        #expect(message(#"{"data": {"user": {"name": "Ada"}}}"#) == nil)
    }

    /// Through the recorder: an unnamed GraphQL request is stored under its operation, and `errors` in its 200 make
    /// it an HTTP error; a request the app named keeps its name and its success.
    @Test func theRecorderNamesUnnamedGraphQLRequestsAndCountsTheirErrors() async throws {
        let store = InMemoryTraceStore()
        let recorder = NetworkTraceInspector(store: store)
        let request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.test", path: "/graphql",
                                  headerFields: [.contentType: "application/json"])
        let query = Data(#"{"query": "query Boom { boom }"}"#.utf8)
        let answer = Data(#"{"data": {"boom": null}, "errors": [{"message": "the boom resolver failed"}]}"#.utf8)
        let (unnamed, named) = (UUID(), UUID())
        for (id, operation) in [(unnamed, "POST /graphql"), (named, "boom")] {
            let recording = AdapterRecording(observer: recorder, adapter: RecordingAdapter.openAPIMiddleware, bodyCap: 1 << 20,
                                             now: { Date(timeIntervalSince1970: 1_700_000_000) }, makeID: { id })
            recording.start(operation: operation, request: request, requestBody: query)
                .finish(response: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), body: answer,
                        firstByte: Date(timeIntervalSince1970: 1_700_000_000))
        }
        await recorder.shutdown()
        let graphQL = try #require(try store.exchange(id: unnamed))
        #expect(graphQL.operation == "query Boom" && graphQL.outcome == .httpError && graphQL.status == 200)
        #expect(graphQL.error == "GraphQL error: the boom resolver failed")
        let app = try #require(try store.exchange(id: named))
        #expect(app.operation == "boom" && app.outcome == .success && app.error == nil)
    }

    @Test func gqlFiltersByTheOperationsName() throws {
        let filter = try TraceFilter.parse("~gql GetUser")
        func exchange(_ operation: String) -> TraceExchange {
            TraceExchange(id: UUID(), operation: operation, method: "POST", url: "https://x/graphql", startedAt: Date(), outcome: .success)
        }
        #expect(filter.matches(exchange("query GetUser")))
        #expect(filter.matches(exchange("mutation GetUser")))
        #expect(filter.matches(exchange("persisted GetUser")))
        #expect(!filter.matches(exchange("query GetUsers")))
        #expect(!filter.matches(exchange("GetUser")))
    }
}
