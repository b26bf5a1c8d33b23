import Foundation
import HTTPTypes
import Loupe
@testable import LoupeTrace
import Testing

/// The event naming the adapter that recorded an exchange: a built-in adapter's is fixed text added after
/// redaction (nothing in it comes from the traffic or the app); an app's own adapter name is redacted with the rest.
@Suite struct AdapterEventTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    func pending(adapter: String?, droppedBefore: Int = 0) -> PendingExchange {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/users/1")
        var pending = PendingExchange(ExchangeStarted(
            exchangeID: UUID(), operation: "getUser", request: request, startedAt: Self.start, adapter: adapter))
        pending.droppedBefore = droppedBefore
        pending.endedAt = Self.start.addingTimeInterval(0.01)
        pending.outcome = .success
        return pending
    }

    @Test(arguments: [RecordingAdapter.openAPIMiddleware, RecordingAdapter.asyncHTTPClient, RecordingAdapter.urlSession])
    func aBuiltInAdaptersEventIsTheSameWordsAtTheExchangesStart(adapter: String) {
        let trace = pending(adapter: adapter).makeTrace(policy: RedactionPolicy(), bodyCap: 1 << 20)
        let event = trace.events.first
        #expect(event?.kind == .adapter && event?.at == Self.start && event?.attributes == ["adapter": adapter])
        #expect(event?.message == PendingExchange.adapterEvent(adapter, at: Self.start).message)
        #expect(trace.events.count == 1)
    }

    @Test func theDropNoticeStaysFirstAndTheAdapterSecond() {
        let trace = pending(adapter: RecordingAdapter.asyncHTTPClient, droppedBefore: 3)
            .makeTrace(policy: RedactionPolicy(), bodyCap: 1 << 20)
        #expect(trace.events.map(\.kind) == [.recorderDrop, .adapter])
    }

    @Test func anAppsOwnAdapterNameIsRedactedByValue() {
        var policy = RedactionPolicy()
        policy.secretValues = ["hush-adapter-9000"]
        let trace = pending(adapter: "hush-adapter-9000").makeTrace(policy: policy, bodyCap: 1 << 20)
        let event = trace.events.first
        #expect(event?.kind == .adapter)
        #expect(!(event?.message.contains("hush-adapter-9000") ?? true) && event?.attributes["adapter"] != "hush-adapter-9000")
    }
}
