import Foundation
@testable import loupe
import PropertyBased
import Testing

@Suite("Numeric option types")
struct NumberArgumentTests {
    static let specials: [Double] = [
        .infinity, -.infinity, .nan, 0, -0.0, 1e-300, -1e-300, 1e300, -1e300, .greatestFiniteMagnitude,
        .leastNonzeroMagnitude, 0.001, 0.0009999, 86_400, 86_400.000001, 36_500, 16_777_216, 16_777_216.5, 100, 100.01,
    ]
    /// Doubles a user might type or a fuzzer would: ordinary, huge, and every special value.
    static let doubles = Gen.oneOf(
        Gen.double(in: -10...100_000), Gen.double(in: -1e307...1e307), Gen.element(of: specials).map { $0 ?? 0 })

    @Test("seconds: accepted exactly when finite and within 0.001...86400; the Duration never traps")
    func seconds() async {
        await propertyCheck(count: 2_000, input: Self.doubles) { value in
            let text = String(value)
            let accepted = value.isFinite && DurationArgument.secondsRange.contains(value)
            do throws(ArgumentValueError) {
                let parsed = try DurationArgument.seconds(text)
                #expect(accepted)
                #expect(parsed.seconds == value)
                let nanoseconds = parsed.duration.components.seconds * 1_000_000_000
                    + parsed.duration.components.attoseconds / 1_000_000_000
                #expect(abs(Double(nanoseconds) - value * 1e9) <= 1)
            } catch {
                #expect(!accepted)
                #expect(error.description == "expected a number of seconds from 0.001 to 86400, got '\(text)'")
            }
        }
    }

    @Test("days: accepted exactly when finite and within 0.0001...36500")
    func days() async {
        await propertyCheck(count: 2_000, input: Self.doubles) { value in
            let accepted = value.isFinite && DurationArgument.daysRange.contains(value)
            let parsed = try? DurationArgument.days(String(value))
            #expect((parsed != nil) == accepted)
            if let parsed { _ = parsed.duration; #expect(abs(parsed.days - value) <= value * 1e-12) }
        }
    }

    @Test("megabytes: accepted exactly when finite and within 0...16 TiB, converted to bytes without trapping")
    func megabytes() async {
        await propertyCheck(count: 2_000, input: Self.doubles) { value in
            let accepted = value.isFinite && ByteSizeArgument.megabyteRange.contains(value)
            let parsed = try? ByteSizeArgument.megabytes(String(value))
            #expect((parsed != nil) == accepted)
            if let parsed { #expect(parsed.bytes == Int((value * 1_048_576).rounded())) }
        }
    }

    @Test("percent: 0 would open a breaker on every call (a precondition in the breaker), so it is refused")
    func percent() async {
        await propertyCheck(count: 1_000, input: Self.doubles) { value in
            let parsed = try? PercentArgument.parse(String(value))
            #expect((parsed != nil) == (value.isFinite && value >= 0.01 && value <= 100))
        }
        #expect(throws: ArgumentValueError.self) { try PercentArgument.parse("0") }
    }

    @Test("counts: accepted exactly when a whole number within the option's bounds")
    func counts() async {
        await propertyCheck(count: 2_000, input: Gen.oneOf(Gen.int(in: -50...50), Gen.int(in: Int.min...Int.max))) { value in
            let parsed = try? CountArgument.parse(String(value), in: 0...20)
            #expect((parsed != nil) == (0...20).contains(value))
            #expect(parsed.map(\.value) == ((0...20).contains(value) ? value : nil))
        }
        for text in ["1e3", "2.0", "inf", "nan", "", " 5", "99999999999999999999", "-0x1", "abc"] {
            #expect(throws: ArgumentValueError(expected: "a whole number from 0 to 20", got: text)) {
                try CountArgument.parse(text, in: 0...20)
            }
        }
        #expect(throws: ArgumentValueError(expected: "a whole number of milliseconds from 0 to 60000", got: "-1")) {
            try CountArgument.parser(in: 0...60_000, unit: "milliseconds")("-1")
        }
    }

    @Test("text that is not a number at all is refused by every type")
    func notNumbers() {
        for text in ["", "abc", "inf", "-inf", "nan", "Infinity", "1e300", "1e-300", "-1", "0x1p100"] {
            #expect(throws: ArgumentValueError.self) { try DurationArgument.seconds(text) }
            #expect(throws: ArgumentValueError.self) { try DurationArgument.days(text) }
            #expect(throws: ArgumentValueError.self) { try PortArgument.parse(text) }
        }
        for text in ["", "abc", "inf", "nan", "1e300", "-1", "-0.5"] {
            #expect(throws: ArgumentValueError.self) { try ByteSizeArgument.megabytes(text) }
        }
    }

    @Test("ports: 0...65535 for listeners; a URL's port must be 1...65535")
    func ports() throws {
        #expect(try PortArgument.parse("0").value == 0)
        #expect(try PortArgument.parse("65535").value == 65_535)
        #expect(throws: ArgumentValueError.self) { try PortArgument.parse("65536") }
        #expect(PortArgument.problem(in: URL(string: "http://127.0.0.1:8080/")!) == nil)
        #expect(PortArgument.problem(in: URL(string: "http://127.0.0.1/")!) == nil)
        #expect(PortArgument.problem(in: URL(string: "http://127.0.0.1:70000/")!) == "port 70000 is out of range (1 to 65535)")
        if let huge = URL(string: "http://127.0.0.1:99999999999/") {
            #expect(PortArgument.problem(in: huge) != nil)
        }
    }
}
