import Foundation
import Loupe
import LoupeReplay
import LoupeServe
import LoupeTrace
import Testing

@Suite struct ServeBookTests {
    static let flaky = [
        ServeRequest(method: "GET", path: "/status"),
        ServeRequest(method: "GET", path: "/status"),
        ServeRequest(method: "GET", path: "/items", query: "page=1&size=10"),
    ]

    @Test(arguments: [(ServeRepeat.last, 1), (.cycle, 0)])
    func identicalRequestsAreServedInRecordedOrderThenByThePolicy(policy: ServeRepeat, third: Int) {
        var book = ServeBook(Self.flaky, repeatPolicy: policy)
        let status = ServeRequest(method: "GET", path: "/status")
        #expect(book.take(status) == .serve(0))
        #expect(book.take(status) == .serve(1))
        #expect(book.take(status) == .serve(third))
    }

    @Test func repeatMissAnswersNothingOnceTheSequenceIsUsedUpAndResetStartsItOver() {
        var book = ServeBook(Self.flaky, repeatPolicy: .miss)
        let status = ServeRequest(method: "GET", path: "/status")
        _ = book.take(status)
        _ = book.take(status)
        guard case .miss(let miss) = book.take(status) else { Issue.record("expected a miss"); return }
        #expect(miss.short.contains("2 recordings were all served"))
        book.reset()
        #expect(book.take(status) == .serve(0))
    }

    @Test func queryItemsMatchInAnyOrder() {
        var book = ServeBook(Self.flaky)
        #expect(book.take(ServeRequest(method: "GET", path: "/items", query: "size=10&page=1")) == .serve(2))
    }

    @Test func aMissNamesTheClosestRecordingAndTheCriterionThatFailed() {
        var book = ServeBook(Self.flaky)
        guard case .miss(let miss) = book.take(ServeRequest(method: "GET", path: "/items", query: "page=2&size=10")) else {
            Issue.record("expected a miss"); return
        }
        #expect(miss.message.contains("closest: #3 GET /items?page=1&size=10 — method ✓ path ✓ query ✗ (page=1 vs page=2)"))
        #expect(miss.short == "closest #3 (query ✗ page=1 vs page=2)")
        guard case .miss(let other) = book.take(ServeRequest(method: "DELETE", path: "/nowhere")) else {
            Issue.record("expected a miss"); return
        }
        #expect(other.message.contains("no recording has this method or this path"))
    }

    @Test func jsonBodiesMatchByValueWithIgnoredPathsLeftOut() throws {
        let recorded = ServeRequest(method: "POST", path: "/orders", body: Data(#"{"item":"lens","quantity":2,"requestId":"a1"}"#.utf8))
        let live = ServeRequest(method: "POST", path: "/orders", body: Data(#"{"requestId":"b2", "quantity":2.0,"item":"lens"}"#.utf8))
        var strict = ServeBook([recorded])
        guard case .miss(let miss) = strict.take(live) else { Issue.record("expected a miss"); return }
        #expect(miss.short == #"closest #1 (body ✗ $.requestId: "a1" vs "b2")"#)
        var lenient = ServeBook([recorded], matching: ServeMatching(ignore: [try DiffPattern("$.requestId")]))
        #expect(lenient.take(live) == .serve(0))
    }

    @Test func chosenHeadersMustBeEqual() {
        let english = ServeRequest(method: "GET", path: "/greeting", headers: [TraceHeader(name: "Accept-Language", value: "en")])
        let french = ServeRequest(method: "GET", path: "/greeting", headers: [TraceHeader(name: "Accept-Language", value: "fr")])
        var book = ServeBook([english, french], matching: ServeMatching(headers: ["accept-language"]))
        let live = ServeRequest(method: "GET", path: "/greeting", headers: [TraceHeader(name: "accept-language", value: "fr")])
        #expect(book.take(live) == .serve(1))
        var anyHeader = ServeBook([english, french])
        #expect(anyHeader.take(live) == .serve(0))
    }

    @Test func aRecordingMadeOnAMissAnswersTheNextIdenticalRequest() {
        var book = ServeBook(Self.flaky)
        let new = ServeRequest(method: "GET", path: "/new")
        guard case .miss = book.take(new) else { Issue.record("expected a miss"); return }
        #expect(book.append(new) == 3)
        #expect(book.take(new) == .serve(3))
    }

    @Test func anEmptyBookSaysSo() {
        var book = ServeBook([])
        guard case .miss(let miss) = book.take(ServeRequest(method: "GET", path: "/")) else { Issue.record("expected a miss"); return }
        #expect(miss.message.contains("nothing is recorded"))
    }
}
