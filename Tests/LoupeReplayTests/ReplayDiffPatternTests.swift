@testable import LoupeTrace
@testable import LoupeReplay
import Testing

@Suite("Replay diff: --ignore patterns")
struct ReplayDiffPatternTests {
    static func path(_ components: JSONPath.Component...) -> DiffLocation { .json(JSONPath(components: components)) }

    static func matches(_ pattern: String, _ location: DiffLocation) throws -> Bool {
        try DiffPattern(pattern).matches(location)
    }

    @Test("a JSON path covers itself and what lies below it")
    func prefixes() throws {
        #expect(try Self.matches("$.meta.generatedAt", Self.path(.key("meta"), .key("generatedAt"))))
        #expect(try Self.matches("$.meta", Self.path(.key("meta"), .key("generatedAt"))))
        #expect(try !Self.matches("$.meta.generatedAt", Self.path(.key("meta"))))
        #expect(try !Self.matches("$.meta.generatedAt", Self.path(.key("meta"), .key("generated"))))
        #expect(try Self.matches("$", Self.path(.key("a"))))
        #expect(try Self.matches("$['content-type']", Self.path(.key("content-type"))))
        #expect(try Self.matches(#"$["it's"]"#, Self.path(.key("it's"))))
        #expect(try Self.matches(#"$['it\'s']"#, Self.path(.key("it's"))))
    }

    @Test("wildcards and descendants")
    func wildcards() throws {
        let id = Self.path(.key("items"), .index(3), .key("id"))
        #expect(try Self.matches("$.items[*].id", id))
        #expect(try Self.matches("$.items[3].id", id))
        #expect(try !Self.matches("$.items[2].id", id))
        #expect(try Self.matches("$.*[*].id", id))
        #expect(try Self.matches("$..id", id))
        #expect(try Self.matches("$..id", Self.path(.key("id"))))
        #expect(try !Self.matches("$..id", Self.path(.key("items"), .index(3), .key("price"))))
        #expect(try Self.matches("$..[3]", id))
        #expect(try Self.matches("$.items..id", id))
        #expect(try !Self.matches("$.items[*]", Self.path(.key("items"))))
        #expect(try !Self.matches("$.items.*", Self.path(.key("items"))))
    }

    @Test("status, body and headers (case-insensitive, with * globs)")
    func otherLocations() throws {
        #expect(try Self.matches("status", .status))
        #expect(try !Self.matches("status", .body))
        #expect(try Self.matches("body", .body))
        #expect(try Self.matches("body", Self.path(.key("a"))))
        #expect(try !Self.matches("$.a", .body))
        #expect(try Self.matches("header:etag", .header("ETag")))
        #expect(try Self.matches("Header:X-Amz-*", .header("x-amz-cf-pop")))
        #expect(try Self.matches("header:*-id", .header("X-Trace-Id")))
        #expect(try !Self.matches("header:X-Amz-*", .header("X-Request-Id")))
        #expect(try !Self.matches("header:ETag", .status))
        #expect(DiffPattern.glob(Array("a*b*c".unicodeScalars), matches: Array("axxbyyc".unicodeScalars)))
        #expect(!DiffPattern.glob(Array("a*b*c".unicodeScalars), matches: Array("axxbyy".unicodeScalars)))
        let stars = Array((String(repeating: "*a", count: 200) + "b").unicodeScalars)
        #expect(!DiffPattern.glob(stars, matches: Array(String(repeating: "a", count: 5_000).unicodeScalars)))
    }

    @Test("bad patterns say what was expected and where")
    func errors() {
        func message(_ text: String) -> String? {
            do {
                _ = try DiffPattern(text)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(message("meta.id") == "'meta.id': expected a JSON path ($.a.b, $.items[*].id), header:NAME, status or body")
        #expect(message("$.items[") == "'$.items[': expected an index, *, or a quoted key after '[' at position 9")
        #expect(message("$.items[3") == "'$.items[3': expected ']' at position 10")
        #expect(message("$.") == "'$.': expected a key or * after '.' at position 3")
        #expect(message("$a") == "'$a': expected '.' or '[' at position 2")
        #expect(message("$['abc") == "'$['abc': unterminated quoted key at position 7")
        #expect(message("$[99999999999999999999]") == "'$[99999999999999999999]': expected an index, *, or a quoted key after '[' at position 23")
        #expect(message("header:") == "'header:': expected a header name after 'header:'")
    }
}
