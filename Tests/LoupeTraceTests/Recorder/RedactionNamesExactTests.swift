import Foundation
@testable import LoupeTrace
import Testing

/// ``RedactionNames/contains(_:)`` answers a name spelled byte for byte as a member (as inserted or in loose form)
/// without normalizing it (``ExactNames``, DECISIONS 53); every answer must be the loose lookup's.
@Suite("Redaction by name: members spelled exactly")
struct RedactionNamesExactTests {
    /// The answer without the exact path: the loose form looked up.
    static func loose(_ names: RedactionNames, _ name: String) -> Bool {
        names.containsNormalized(RedactionNames.normalized(name))
    }

    @Test("contains answers as the loose lookup for exact spellings, loose variants, near misses and a Kelvin sign")
    func answersAsLooseLookup() {
        let names = RedactionPolicy.defaultHeaderNames.union(["Ключ-Доступа", "K"])
        var probes: [String] = []
        for name in names {
            probes += [name, name.lowercased(), name.uppercased(), RedactionNames.normalized(name),
                       name.replacingOccurrences(of: "-", with: "_"), name + "x", String(name.dropLast()),
                       "x" + name, name.replacingOccurrences(of: "K", with: "\u{212A}")]
        }
        probes += ["", "-", "Authorisation", "authorization ", "Authorizatio\u{301}n", "\u{212A}", "k", "Content-Type"]
        for probe in probes {
            #expect(names.contains(probe) == Self.loose(names, probe), "\(probe)")
        }
        #expect(names.contains("Authorization") && names.contains("authorization") && names.contains("AUTHORIZATION"))
        #expect(names.contains("ключдоступа"))
    }

    @Test("removing and inserting a name changes what its exact spelling answers")
    func followsChanges() {
        var names = RedactionPolicy.defaultHeaderNames
        #expect(names.contains("Authorization"))
        names.remove("AUTHORIZATION")
        #expect(!names.contains("Authorization") && !names.contains("authorization"))
        names.insert("x_custom_secret")
        #expect(names.contains("x_custom_secret") && names.contains("X-Custom-Secret") && names.contains("xcustomsecret"))
        names.formIntersection(["X-Api-Key"])
        #expect(names.contains("X-Api-Key") && !names.contains("x_custom_secret") && !names.contains("Cookie"))
        names.subtract(["x-api-key"])
        #expect(!names.contains("X-Api-Key") && names.isEmpty)
    }

    @Test("a name of 64 bytes or more is found by the loose lookup")
    func longNames() {
        let long = String(repeating: "Long-Header-", count: 8)
        let names: RedactionNames = [long]
        #expect(names.contains(long) && names.contains(long.lowercased()) && !names.contains(long + "x"))
    }
}
