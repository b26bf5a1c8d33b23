import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Looking exchanges up by id, prefix or sequence")
struct ExchangeLookupTests {
    static let ids = [
        "AAAAAAAA-0000-4000-8000-000000000001", "AAAAAAAA-0000-4000-8000-000000000002", "B0000000-0000-4000-8000-000000000003",
    ].map { UUID(uuidString: $0)! }

    @Test("whole ids, unique prefixes in any case, and sequence numbers find one exchange", arguments: StoreKind.allCases)
    func lookups(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try kind.make(folder, now: TestNow())
        try store.write(Self.ids.enumerated().map { Fixture.simple($0.offset, id: $0.element) })
        let sequences = try store.recent(limit: 10).map(\.sequence)

        func found(_ reference: String) throws -> UUID? {
            if case .found(let exchange) = try store.lookup(reference) { return exchange.id }
            return nil
        }
        #expect(try found(Self.ids[2].uuidString) == Self.ids[2])
        #expect(try found(Self.ids[2].uuidString.lowercased()) == Self.ids[2])
        #expect(try found("b0") == Self.ids[2])
        #expect(try found("aaaaaaaa-0000-4000-8000-000000000002") == Self.ids[1])
        #expect(try found("#\(sequences[0])") == Self.ids[0])
        #expect(try found(" \(sequences[1]) ") == Self.ids[1])
        #expect(try store.exchange(sequence: sequences[2])?.id == Self.ids[2])

        guard case .ambiguous(let candidates) = try store.lookup("aaaa") else {
            Issue.record("expected an ambiguous prefix")
            return
        }
        #expect(candidates.map(\.id) == [Self.ids[0], Self.ids[1]])
        for missing in ["C", "#999", "not-an-id", "", "AAAAAAAA-0000-4000-8000-000000000009"] {
            #expect(try store.lookup(missing) == .notFound, "\(missing)")
        }
    }
}
