import Foundation
import Loupe
import LoupeServe
import LoupeTrace
import Testing

@Suite struct ServeAnswerTests {
    @Test func connectionHeadersAreLeftForTheServerAndADecodedBodyLosesItsCoding() throws {
        let exchange = Recordings.exchange("GET", "/items", status: 200, body: #"{"ok":true}"#, responseHeaders: [
            TraceHeader(name: "Date", value: "Tue, 14 Nov 2023 22:13:20 GMT"),
            TraceHeader(name: "Content-Length", value: "999"),
            TraceHeader(name: "Transfer-Encoding", value: "chunked"),
            TraceHeader(name: "Content-Encoding", value: "gzip"),
            TraceHeader(name: "ETag", value: "\"v1\""),
        ])
        let answer = try #require(ServeAnswer(exchange))
        #expect(answer.status == 200)
        #expect(answer.headers.map(\.name) == ["ETag", "Content-Type"])
        #expect(answer.body == Data(#"{"ok":true}"#.utf8))
    }

    @Test func aBodyStillInGzipIsServedAsRecordedWithItsHeader() throws {
        var exchange = Recordings.exchange("GET", "/z", status: 200, responseHeaders: [TraceHeader(name: "Content-Encoding", value: "gzip")])
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        exchange.responseBody = TraceBody(data: gzip, size: gzip.count, isTruncated: false)
        let answer = try #require(ServeAnswer(exchange))
        #expect(answer.headers.contains { $0.name == "Content-Encoding" && $0.value == "gzip" })
        #expect(answer.body == gzip)
    }

    @Test func anExchangeWithoutAResponseHasNothingToServe() {
        var exchange = Recordings.exchange("GET", "/x", status: 200)
        exchange.status = nil
        #expect(ServeAnswer(exchange) == nil)
    }
}
