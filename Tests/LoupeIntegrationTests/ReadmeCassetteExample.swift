// The cassette example of LoupeTesting.docc/Cassettes.md, word for word (only this comment and the suite wrapper are added), replayed from
// the checked-in `Cassettes/items.har`: if the article's code stops compiling or working, this file says so.
import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeTesting
import Testing

@Suite struct ReadmeCassetteExample {
    static let token = ProcessInfo.processInfo.environment["API_TOKEN"] ?? "dummy-token"   // real only when recording

    struct ListItems: Endpoint {
        typealias Response = String
        var path: String { "/items" }
        var headers: HTTPFields { [.authorization: "Bearer \(token)"] }
    }

    @Test(.cassette("items", secrets: ["TOKEN": token]))         // Cassettes/items.har beside this file
    func listsItems() async throws {
        let transport = try #require(Cassette.current).transport(upstream: AsyncHTTPClientTransport())
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: transport)
        let items = try await client.send(ListItems())           // first run records; later runs replay offline
        #expect(items.contains("\"id\""))
    }
}
