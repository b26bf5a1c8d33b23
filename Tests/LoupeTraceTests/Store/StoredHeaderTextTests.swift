import Foundation
import Loupe
@testable import LoupeTrace
import Testing

@Suite("Stored header lists")
struct StoredHeaderTextTests {
    @Test("header lists are stored as the bytes JSONEncoder gave, and read back by the fast path")
    func sameBytesAsEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let awkward = "\"\\/\u{0}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F} é😀\u{2028}"
        let lists: [[TraceHeader]] = [
            [],
            [TraceHeader(name: "Accept", value: "application/json")],
            [TraceHeader(name: "", value: ""), TraceHeader(name: awkward, value: awkward),
             TraceHeader(name: "Set-Cookie", value: "a=b; Path=/x")],
        ]
        for headers in lists {
            let text = StoredJSON.text(of: headers)
            #expect(text == String(decoding: try encoder.encode(headers), as: UTF8.self))
            #expect(try StoredJSON.headers(text) == headers)
        }
    }
}
