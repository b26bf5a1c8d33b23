import Foundation
@testable import LoupeTrace
@testable import LoupeFormats
import Testing

@Suite("HAR fast entry decoding")
struct HARFastDecodingTests {
    static let plain = #"""
        {"startedDateTime":"2024-03-10T10:00:00.123Z","time":12.5,"_priority":{"x":[1,-2.5e3,true,null,"a\"b"]},
         "request":{"method":"POST","url":"https://h.test/a?q=1","httpVersion":"HTTP/1.1",
           "cookies":[{"name":"s","value":"1","httpOnly":true,"secure":false,"path":"/"}],
           "headers":[{"name":"A","value":"b\n\t\\\/ é😀"},{"name":"C","value":"d","comment":"x"}],
           "queryString":[{"name":"q","value":"1"}],
           "postData":{"mimeType":"application/x-www-form-urlencoded","params":[{"name":"a","value":"1"}]},
           "headersSize":-1,"bodySize":0},
         "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[],
           "content":{"size":5,"mimeType":"text/plain","text":"hello","compression":0},"redirectURL":"",
           "headersSize":-1,"bodySize":5,"_error":"net::ERR"},
         "cache":{},"timings":{"blocked":-1,"dns":0,"connect":-1,"send":1,"wait":10.25,"receive":0.125,"ssl":-1},
         "serverIPAddress":"10.0.0.1","connection":"443","pageref":"p1","comment":"c"}
        """#

    /// Each a change to the plain entry that only `JSONDecoder` reads (or refuses).
    static let unusual = [
        (#""status":200"#, #""status":"200""#), (#""status":200"#, #""status":200.0"#), (#""status":200"#, #""status":null"#),
        (#""status":200"#, #""status":2e2"#), (#""time":12.5"#, #""time":"12.5""#), (#""time":12.5"#, #""time":1e400"#),
        (#""time":12.5"#, #""time":1e-400"#), (#""time":12.5"#, #""time":012"#), (#""method":"POST""#, #""method":1"#),
        (#""method":"POST""#, #""method":"P\ud800ST""#), (#""text":"hello""#, #""text":"hel\udc00lo""#),
        (#""text":"hello""#, #""text":"hel\u+06co""#), (#""name":"q","#, #""name":"q","name":"r","#), (#""cache":{}"#, #""cache":[]"#), (#""cache":{}"#, #""_loupe":{}"#),
        (#""httpOnly":true"#, #""httpOnly":"true""#), (#""url":"https://h.test/a?q=1","#, ""),
        (#""queryString":[{"name":"q","value":"1"}]"#, #""queryString":[1]"#), (#""bodySize":0}"#, #""bodySize":0,}"#),
        (#""headers":[]"#, #""headers":null"#), (#""content":{"#, #""content":{"size":99999999999999999999,"#),
    ]

    @Test("a plain entry reads as JSONDecoder reads it; an unusual one is left to the decoder, never read otherwise")
    func sameAsDecoder() throws {
        let decoder = JSONDecoder()
        let plain = Data(Self.plain.utf8)
        let fast = try #require(HARFastDecoding.entry(plain))
        #expect(fast == (try decoder.decode(HAREntry.self, from: plain)))
        #expect(fast.request.cookies.first?.httpOnly == true && fast.response.browserError == "net::ERR")
        for (original, replacement) in Self.unusual {
            #expect(Self.plain.contains(original), "\(original)")
            let text = Self.plain.replacingOccurrences(of: original, with: replacement)
            #expect(HARFastDecoding.entry(Data(text.utf8)) == nil, "\(replacement)")
        }
    }

    /// Each a change to the plain entry that the shared reader reads, and reads as `JSONDecoder` does: escapes the
    /// small parser it replaced left to the decoder (`\u`, a pair for one scalar, `\u0000`; the old test listed
    /// `P\u004fST` among what it never read), spacing, an unknown member with escaped non-ASCII keys.
    static let tricky = [
        (#""method":"POST""#, #""method":"P\u004fST""#), (#""text":"hello""#, #""text":"hel\u0000lo\ud83d\ude00""#),
        (#""statusText":"OK""#, #""statusText":"\u00e9\u4e2d\/\b\f""#), (#""bodySize":5,"#, "\"bodySize\" :  5 ,\r\n\t"),
        (#""comment":"c"}"#, #""comment":"c","_caf\u00e9":{"\u00e9":["é"]}}"#),
    ]

    @Test("tricky JSON is read by the shared reader as JSONDecoder reads it, not left to the decoder")
    func trickyThroughTheSharedReader() throws {
        let decoder = JSONDecoder()
        for (original, replacement) in Self.tricky {
            #expect(Self.plain.contains(original), "\(original)")
            let data = Data(Self.plain.replacingOccurrences(of: original, with: replacement).utf8)
            let fast = try #require(HARFastDecoding.entry(data), "\(replacement)")
            #expect(fast == (try decoder.decode(HAREntry.self, from: data)), "\(replacement)")
        }
        let escaped = Data(Self.plain.replacingOccurrences(of: #""text":"hello""#, with: #""text":"a\u00e9\ud83d\ude00""#).utf8)
        #expect(HARFastDecoding.entry(escaped)?.response.content.text == "aé😀")
    }

    @Test("whole numbers, fractions and exponents read as the decoder reads them; bad grammar is not taken")
    func numbers() throws {
        for text in ["0", "-0", "7", "-12", "0.5", "-0.25e-2", "1E3", "123456789.125", "5e-324"] {
            let value = try #require(JSONParser.parse(Data(text.utf8), matchingDecoder: true), "\(text)")
            guard case .number(let number) = value else { Issue.record("\(text): \(value)"); continue }
            #expect(number.text == text)
        }
        for text in ["01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", "1.2.3", "0x10", "1 2"] {
            #expect(JSONParser.parse(Data(text.utf8), matchingDecoder: true) == nil, "\(text)")
        }
        #expect(JSONParser.parse(Data(#"[1, {"a" : "b\/"} ]"#.utf8), matchingDecoder: true)?.compactText() == #"[1,{"a":"b/"}]"#)
    }

    @Test("matching the decoder, the reader refuses a lone surrogate and a repeated key, which the diff reads")
    func matchingTheDecoder() {
        for text in [#"["\ud800"]"#, #"["\udc00x"]"#, #"["\ud800\u0041"]"#] {
            #expect(JSONParser.parse(Data(text.utf8)) != nil, "\(text)")
            #expect(JSONParser.parse(Data(text.utf8), matchingDecoder: true) == nil, "\(text)")
        }
        #expect(JSONParser.parse(Data(#"["\ud800"]"#.utf8)) == .array([.string("\u{FFFD}")]))
        let repeated = Data(#"{"a":1,"b":2,"a":3}"#.utf8)
        #expect(JSONParser.parse(repeated)?.compactText() == #"{"a":3,"b":2}"#)
        #expect(JSONParser.parse(repeated, matchingDecoder: true) == nil)
        // Four hex digits and nothing else: `UInt32(_:radix:)` took `+041` for 0x41.
        #expect(JSONParser.parse(Data(#"["\u+041"]"#.utf8)) == nil)
        #expect(JSONParser.parse(Data(#"["\u0041\u00E9"]"#.utf8)) == .array([.string("Aé")]))
    }
}
