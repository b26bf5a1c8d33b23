import Foundation
import Loupe
@testable import LoupeTrace
@testable import LoupeReplay
import Testing

@Suite("Replay diff: exchanges, ignore patterns and noise")
struct ReplayExchangeDiffTests {
    static func exchange(status: Int?, headers: KeyValuePairs<String, String> = ["Content-Type": "application/json"],
                         body: String = "", truncated: Bool = false) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "GET /items", method: "GET", url: "http://127.0.0.1:1/items", startedAt: Date(timeIntervalSince1970: 0),
            outcome: status == nil ? .transportError : .success, status: status,
            responseHeaders: headers.map { TraceHeader(name: $0.key, value: $0.value) },
            responseBody: body.isEmpty ? nil : TraceBody(data: Data(body.utf8), size: truncated ? body.utf8.count * 2 : body.utf8.count, isTruncated: truncated))
    }

    @Test("status, then headers, then the body")
    func order() {
        let old = Self.exchange(status: 200, headers: ["Content-Type": "application/json", "ETag": "\"1\""], body: #"{"price": 10}"#)
        let new = Self.exchange(status: 201, headers: ["Content-Type": "application/json", "ETag": "\"2\""], body: #"{"price": 12}"#)
        let diff = ExchangeDiff(original: old, replay: new)
        #expect(diff.differences.map(\.description) == [
            "status: 200 → 201", #"header:ETag: "1" → "2""#, "$.price: 10 → 12",
        ])
        #expect(!diff.isSame)
        #expect(ExchangeDiff(original: old, replay: old).isSame)
    }

    @Test("a side without a response compares only the status")
    func failures() {
        let answered = Self.exchange(status: 200, body: #"{"a": 1}"#)
        let failed = Self.exchange(status: nil)
        #expect(ExchangeDiff(original: answered, replay: failed).differences.map(\.description) == ["status: 200 → none"])
        #expect(ExchangeDiff(original: failed, replay: answered).differences.map(\.description) == ["status: none → 200"])
        #expect(ExchangeDiff(original: failed, replay: failed).isSame)
    }

    @Test("--ignore patterns move differences to the ignored list")
    func ignore() throws {
        let old = Self.exchange(status: 200, body: #"{"meta": {"generatedAt": "a"}, "items": [{"id": 1, "n": 1}, {"id": 2, "n": 1}]}"#)
        let new = Self.exchange(status: 200, body: #"{"meta": {"generatedAt": "b"}, "items": [{"id": 7, "n": 1}, {"id": 8, "n": 2}]}"#)
        let plain = ExchangeDiff(original: old, replay: new)
        #expect(plain.differences.count == 4)
        let options = DiffOptions(ignore: [try DiffPattern("$.meta.generatedAt"), try DiffPattern("$.items[*].id")])
        let diff = ExchangeDiff(original: old, replay: new, options: options)
        #expect(diff.differences.map(\.description) == ["$.items[1].n: 1 → 2"])
        #expect(diff.ignored.map(\.location.description) == ["$.meta.generatedAt", "$.items[0].id", "$.items[1].id"])
        #expect(diff.noise.isEmpty)
    }

    @Test("noise learned from identical runs is reported apart from real differences")
    func noise() {
        func run(_ id: String, _ price: Int, requestID: String) -> TraceExchange {
            Self.exchange(status: 200, headers: ["Content-Type": "application/json", "X-Upstream": requestID],
                          body: #"{"requestId": "\#(id)", "price": \#(price), "tags": ["\#(id)"]}"#)
        }
        let original = run("a", 10, requestID: "r1")
        let runs = [run("b", 12, requestID: "r2"), run("c", 12, requestID: "r3"), Self.exchange(status: nil)]
        let profile = NoiseProfile(learningFrom: runs)
        #expect(profile.locations.map(\.description) == ["header:X-Upstream", "$.requestId", "$.tags[0]"])
        let diff = ExchangeDiff(original: original, replay: runs[0], options: DiffOptions(noise: profile))
        #expect(diff.differences.map(\.description) == ["$.price: 10 → 12"])
        #expect(diff.noise.map(\.description) == [#"header:X-Upstream: r1 → r2"#, #"$.requestId: "a" → "b""#, #"$.tags[0]: "a" → "b""#])
        #expect(NoiseProfile(learningFrom: [runs[2]]).locations.isEmpty)
        #expect(NoiseProfile(learningFrom: [original, original]).locations.isEmpty)
    }

    @Test("a text body that changes between runs is noise as a whole; a deeper JSON path is covered by its parent")
    func coverage() {
        let profile = NoiseProfile(locations: [.body, .json(JSONPath(components: [.key("meta")]))])
        #expect(profile.covers(.body))
        #expect(profile.covers(.json(JSONPath(components: [.key("x")]))))
        let meta = NoiseProfile(locations: [.json(JSONPath(components: [.key("meta")])), .header("ETag"), .header("etag")])
        #expect(meta.locations.count == 2)
        #expect(meta.covers(.json(JSONPath(components: [.key("meta"), .key("id")]))))
        #expect(!meta.covers(.json(JSONPath.root)))
        #expect(meta.covers(.header("ETAG")))
        #expect(!meta.covers(.status))
    }

    @Test("a truncated body is compared only as far as it was recorded, and the diff says so")
    func truncated() {
        let old = Self.exchange(status: 200, headers: ["Content-Type": "text/plain"], body: "a\nb\n", truncated: true)
        let new = Self.exchange(status: 200, headers: ["Content-Type": "text/plain"], body: "a\nb\n")
        let diff = ExchangeDiff(original: old, replay: new)
        #expect(diff.isSame)
        #expect(diff.notes == ["the original's response body was recorded only in part (4 of 8 bytes); only that part was compared"])
    }
}
