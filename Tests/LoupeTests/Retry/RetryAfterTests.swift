import Foundation
import Loupe
import Testing

@Suite struct RetryAfterTests {
    let now = RetryFixture.now
    /// 784111777 = Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    let example = Date(timeIntervalSince1970: 784_111_777)

    @Test func deltaSeconds() {
        #expect(RetryAfter.delay("120", now: now) == .seconds(120))
        #expect(RetryAfter.delay(" 7 ", now: now) == .seconds(7))
        #expect(RetryAfter.delay("0", now: now) == .zero)
    }

    @Test(arguments: ["", "-1", "1.5", "soon", "12s", "0x10"])
    func invalidValuesAreIgnored(value: String) {
        #expect(RetryAfter.delay(value, now: now) == nil)
    }

    @Test func anAbsurdDeltaSaturatesInsteadOfOverflowing() throws {
        let delay = try #require(RetryAfter.delay("99999999999999999999999", now: now))
        #expect(delay > .seconds(86_400 * 365 * 99))
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func allThreeHTTPDateForms(text: String) {
        #expect(RetryAfter.httpDate(text, now: now) == example)
    }

    @Test func twoDigitYearsMoreThanFiftyYearsAheadAreInThePast() {
        // now is 2023: "30" is 2030, "80" would be 2080 (more than 50 years ahead), so 1980.
        #expect(RetryAfter.httpDate("Monday, 01-Jan-30 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 1_893_456_000))
        #expect(RetryAfter.httpDate("Tuesday, 01-Jan-80 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 315_532_800))
    }

    @Test func aFutureDateIsTheDistanceFromNow() {
        #expect(RetryAfter.delay("Tue, 14 Nov 2023 22:14:02 GMT", now: now) == .seconds(42))
        #expect(RetryAfter.delay("Wed, 15 Nov 2023 22:13:20 GMT", now: now) == .seconds(86_400))
        #expect(RetryAfter.delay("Tue Nov 14 22:13:21 2023", now: now) == .seconds(1))
    }

    @Test func aPastDateMeansNoWait() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .zero)
    }

    @Test(arguments: [
        "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Noe 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49 GMT", "Sun Nov  6 08:49:37",
    ])
    func malformedDatesAreRejected(text: String) {
        #expect(RetryAfter.httpDate(text, now: now) == nil)
        #expect(RetryAfter.delay(text, now: now) == nil)
    }
}
