import Foundation
@_spi(JSON) @testable import LoupeTrace
import Testing

/// The one JSON tokenizer (DECISIONS 82): offsets out, never a failure, never recursion.
@Suite("JSON tokenizer")
struct JSONTokenizerTests {
    /// Each token of `text` as `kind text` (with `…` when cut), up to the end.
    static func tokens(_ text: String) -> [String] {
        tokens(Array(text.utf8))
    }

    static func tokens(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var out: [String] = []
            while true {
                let token = tokenizer.next()
                if token.kind == .end {
                    #expect(token.start == buffer.count && token.end == buffer.count)
                    return out
                }
                let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[token.start..<token.end]), as: UTF8.self)
                out.append("\(token.kind) \(text)\(token.isCut ? "…" : "")")
            }
        }
    }

    @Test("tokens carry their bytes as written, numbers kept as text")
    func tokensAsWritten() {
        #expect(Self.tokens(#" {"a" :[1.10, -0.5E+10, 12345678901234567890, true,false ,null]}"#) == [
            "beginObject {", "string \"a\"", "colon :", "beginArray [", "number 1.10", "comma ,", "number -0.5E+10",
            "comma ,", "number 12345678901234567890", "comma ,", "literal true", "comma ,", "literal false", "comma ,",
            "literal null", "endArray ]", "endObject }",
        ])
        #expect(Self.tokens("") == [])
        #expect(Self.tokens(" \t\r\n") == [])
    }

    @Test("escapes stay inside their string: quotes, backslashes, \\u with and without quotes in it")
    func escapes() {
        #expect(Self.tokens(#""a\"b\\" 1 "#) == [#"string "a\"b\\""#, "number 1"])
        #expect(Self.tokens(#""\u00e9\ud83d\ude00""#) == [#"string "\u00e9\ud83d\ude00""#])
        // A `\u` holding a quote ends at that quote, as `\` and one byte would.
        #expect(Self.tokens(#"["\u12"]"#) == ["beginArray [", #"string "\u12""#, "endArray ]"])
        #expect(Self.tokens(#""\u\"x""#) == [#"string "\u\"x""#])
        // Raw control characters and any bytes are part of a string here (strict readers check again).
        #expect(Self.tokens([0x22, 0x01, 0xFF, 0x22]).count == 1)
    }

    @Test("a body cut short: the last token is marked, whatever it cuts")
    func truncated() {
        #expect(Self.tokens(#"{"a": "abc"#) == ["beginObject {", "string \"a\"", "colon :", "string \"abc…"])
        #expect(Self.tokens(#""abc\"#) == ["string \"abc\\…"])
        #expect(Self.tokens(#""ab\u00"#) == ["string \"ab\\u00…"])
        #expect(Self.tokens("[tru") == ["beginArray [", "literal tru…"])
        #expect(Self.tokens("[12") == ["beginArray [", "number 12…"])
        #expect(Self.tokens("[12 ") == ["beginArray [", "number 12"])
        // Every prefix of a document tokenizes without trapping, each token inside the bytes.
        let document = Array(#"{"k": [1.5e3, "v\"\u00e9", {"n": null}], "t": true}"#.utf8)
        for end in 0...document.count {
            let prefix = Array(document[..<end])
            #expect(Self.tokens(prefix).count <= 20)
        }
    }

    @Test("bytes that start no token are invalid tokens of their own; a misspelt literal ends at its first wrong byte")
    func invalidBytes() {
        #expect(Self.tokens("[x]") == ["beginArray [", "invalid x", "endArray ]"])
        #expect(Self.tokens("trux") == ["invalid tru", "invalid x"])
        #expect(Self.tokens("nil") == ["invalid n", "invalid i", "invalid l"])
        #expect(Self.tokens([0xFF, 0x00, 0x7B]) == ["invalid \u{FFFD}", "invalid \u{0}", "beginObject {"])
    }

    @Test("nesting a million deep costs no stack: the tokenizer keeps no depth")
    func deepNesting() {
        let depth = 1_000_000
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        let counts = bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var (opens, closes) = (0, 0)
            while true {
                switch tokenizer.next().kind {
                case .beginArray: opens += 1
                case .endArray: closes += 1
                case .end: return (opens, closes)
                default: Issue.record("unexpected token")
                }
            }
        }
        #expect(counts == (depth, depth))
    }

    @Test("strict string reading: control characters and malformed UTF-8 stop it, a cut sequence can resume")
    func strictStrings() {
        func scan(_ bytes: [UInt8]) -> (Int, JSONTokenizer.StringStop) {
            bytes.withUnsafeBufferPointer { JSONTokenizer.scanString($0, from: 1, validatingUTF8: true) }
        }
        #expect(scan(Array("\"caf\u{e9}\"".utf8)) == (7, .closed))
        #expect(scan([0x22, 0x61, 0x01, 0x22]) == (2, .control))
        #expect(scan([0x22, 0xC0, 0xAF, 0x22]) == (1, .invalidUTF8))  // overlong
        #expect(scan([0x22, 0xED, 0xA0, 0x80, 0x22]) == (1, .invalidUTF8))  // a surrogate
        #expect(scan([0x22, 0x61, 0xE2, 0x82]) == (2, .cut))  // resumes at the sequence's first byte
        #expect(scan([0x22, 0x5C, 0x75, 0x31, 0x22, 0x32, 0x33]) == (3, .badUnicodeEscape))
    }

    /// Each token `nextStrict()` reads from `text`, as ``tokens(_:)`` writes them.
    static func strictTokens(_ bytes: [UInt8]) -> [String] {
        bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var out: [String] = []
            while true {
                let token = tokenizer.nextStrict()
                if token.kind == .end { return out }
                let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[token.start..<token.end]), as: UTF8.self)
                out.append("\(token.kind) \(text)\(token.isCut ? "…" : "")")
            }
        }
    }

    @Test("strict tokens: a string RFC 8259 refuses is an invalid token up to the byte at fault; the rest as next() reads them")
    func strictTokens() {
        #expect(Self.strictTokens(Array(#"{"caf\#u{e9}": "\u00e9\n", "n": [1, true]}"#.utf8))
            == Self.tokens(#"{"caf\#u{e9}": "\u00e9\n", "n": [1, true]}"#))
        #expect(Self.strictTokens([0x5B, 0x22, 0x61, 0x01, 0x22, 0x5D]) == ["beginArray [", "invalid \"a", "invalid \u{1}", "string \"]…"])
        #expect(Self.strictTokens([0x22, 0xC0, 0xAF, 0x22]).first == "invalid \"")  // overlong
        #expect(Self.strictTokens(Array(#""\u12"]"#.utf8)).first == #"invalid "\u"#)
        // Cut inside a string (or a UTF-8 sequence) is a cut string, as next() has it.
        #expect(Self.strictTokens([0x22, 0x61, 0xE2, 0x82]) == ["string \"a\u{FFFD}…"])
        #expect(Self.strictTokens(Array(#""ab\"#.utf8)) == ["string \"ab\\…"])
    }

    @Test("only strings: nextString() finds the strings next() finds, the tokens between skipped")
    func onlyStrings() {
        let documents = [
            #"{"a": [1.5e3, "v\"\u00e9", {"n": null}], "t": true, "x": tr"y", "z": -0}"#,
            #"["\u12"]", "last"#, #"nul"x" 12"y"#, "", "  ", #"""#,
        ]
        for document in documents {
            let bytes = Array(document.utf8)
            let strings = bytes.withUnsafeBufferPointer { buffer in
                var tokenizer = JSONTokenizer(buffer)
                var out: [String] = []
                while true {
                    let token = tokenizer.nextString()
                    if token.kind == .end { return out }
                    #expect(token.kind == .string)
                    let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[token.start..<token.end]), as: UTF8.self)
                    out.append("\(token.kind) \(text)\(token.isCut ? "…" : "")")
                }
            }
            #expect(strings == Self.tokens(bytes).filter { $0.hasPrefix("string ") }, "\(document)")
        }
    }

    @Test("plain tokens: a string without a backslash, a number of digits alone")
    func plainTokens() {
        let text = Array(#"["a", "b\"", "\u00e9", 12, -3, 0, 1.5, 2e3, -, true]"#.utf8)
        let plain = text.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            var out: [Bool] = []
            while true {
                let token = tokenizer.next()
                if token.kind == .end { return out }
                if token.kind == .string || token.kind == .number { out.append(token.isPlain) }
            }
        }
        #expect(plain == [true, false, false, true, true, true, false, false, true])
    }

    @Test(arguments: [
        ("0", JSONTokenizer.NumberVerdict.valid), ("-0.0e-0", .valid), ("12345678901234567890", .valid), ("-7", .valid),
        ("1E5", .valid), ("-", .prefix), ("1.", .prefix), ("2e+", .prefix), ("01", .invalid), ("1.2.3", .invalid),
        ("--1", .invalid), ("1e5e", .invalid), ("+1", .invalid),
    ])
    func numberGrammar(_ token: String, _ verdict: JSONTokenizer.NumberVerdict) {
        let bytes = Array(token.utf8)
        #expect(bytes.withUnsafeBufferPointer { JSONTokenizer.numberVerdict($0) } == verdict)
        // The same verdict from the token, whether it is plain (digits alone) or not.
        let fromToken = bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            let number = tokenizer.next()
            return number.kind == .number && number.end == buffer.count ? tokenizer.numberVerdict(number) : nil
        }
        #expect(fromToken == (token.first == "+" ? nil : verdict))
    }

    @Test(arguments: ["-", "-0", "-01", "-12", "0", "00", "01", "10", "7", "-7", "123456789"])
    func plainNumberVerdicts(_ token: String) {
        let bytes = Array(token.utf8)
        let (plain, fromToken) = bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = JSONTokenizer(buffer)
            let number = tokenizer.next()
            return (number.isPlain, tokenizer.numberVerdict(number))
        }
        #expect(plain)
        #expect(fromToken == bytes.withUnsafeBufferPointer { JSONTokenizer.classifyNumber($0) })
    }
}
