import Foundation
import Loupe
import LoupeTrace
import Testing

@Suite struct TraceContextTests {
    @Test func parsesTheRecordedTraceparent() throws {
        let exchange = TraceExchange(
            id: UUID(), operation: "op", method: "GET", url: "https://x.test/", startedAt: Date(), outcome: .success,
            requestHeaders: [TraceHeader(name: "Traceparent", value: "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")])
        let context = try #require(exchange.traceContext)
        #expect(context.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.spanID == "00f067aa0ba902b7")
        #expect(context.sampled)
    }

    @Test(arguments: [
        "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01", "00-4bf92f-00f067aa0ba902b7-01",
    ])
    func refusesMalformedTraceparents(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    @Test func noHeaderNoContext() {
        let exchange = TraceExchange(id: UUID(), operation: "op", method: "GET", url: "https://x.test/", startedAt: Date(), outcome: .success)
        #expect(exchange.traceContext == nil)
    }
}
