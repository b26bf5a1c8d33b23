import Foundation
import HTTPTypes
@testable import Loupe
import Testing

/// `RawResponse.status` is read from the head once and kept (DECISIONS 42): every way of changing the head must
/// keep it the head's.
@Suite struct RawResponseStatusTests {
    @Test func theStatusFollowsTheHeadWhicheverWayItChanges() {
        var raw = RawResponse(status: .notModified, headerFields: [.eTag: "\"v1\""])
        #expect(raw.status == .notModified)
        raw.head.status = .ok
        #expect(raw.status == .ok)
        raw.head = HTTPResponse(status: .serviceUnavailable)
        #expect(raw.status == .serviceUnavailable)
        #expect(raw.status.reasonPhrase == "Service Unavailable")
        raw.head.headerFields[.retryAfter] = "3"
        #expect(raw.status == .serviceUnavailable)
        #expect(raw.head.headerFields[.retryAfter] == "3")
        raw.head.status = HTTPResponse.Status(code: 299, reasonPhrase: "Custom")
        #expect(raw.status.code == 299 && raw.status.reasonPhrase == "Custom")
    }

    /// The context keeps what does not change during an exchange once, in its tracker (DECISIONS 42); a copy a
    /// middleware annotates still reads the same id, operation and clock.
    @Test func aContextCopyReadsTheExchangesIDOperationAndClock() {
        let id = UUID()
        let tracker = ExchangeTracker(
            exchangeID: id, operation: "GET /v1/x", clock: ContinuousClock(), observer: NoOpClientObserver(), now: { Date() })
        let context = RequestContext(timeout: .seconds(2), tracker: tracker)
        var copy = context
        copy.annotations.note("cache", "miss")
        #expect(copy.exchangeID == id && copy.operation == "GET /v1/x" && copy.timeout == .seconds(2))
        #expect(copy.clock is ContinuousClock)
        #expect(context.annotations.extra.isEmpty)
    }
}
