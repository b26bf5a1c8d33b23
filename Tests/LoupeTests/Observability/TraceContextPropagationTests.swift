import Foundation
import Testing

@testable import Loupe

@Suite struct TraceContextPropagationTests {
    @Test func theFallbackIsW3CShapedWithLeadingZerosKept() {
        let id = UUID(uuidString: "01234567-89AB-7CDE-8F00-000000000001")!
        #expect(
            TraceContextPropagation.fallbackTraceparent(exchangeID: id, attempt: 0)
                == "00-0123456789ab7cde8f00000000000001-8f00000000000001-01")
        #expect(
            TraceContextPropagation.fallbackTraceparent(exchangeID: id, attempt: 15)
                == "00-0123456789ab7cde8f00000000000001-8f00000000000010-01")
    }

    @Test func aParentIDThatWrapsToZeroBecomesOne() {
        // W3C forbids an all-zero parent id; low 64 bits of all ones plus attempt 1 wraps to zero.
        let id = UUID(uuidString: "00000000-0000-0000-FFFF-FFFFFFFFFFFF")!
        let value = TraceContextPropagation.fallbackTraceparent(exchangeID: id, attempt: 1)
        #expect(value == "00-0000000000000000ffffffffffffffff-0000000000000001-01")
        #expect(value.utf8.count == 55)
    }
}
