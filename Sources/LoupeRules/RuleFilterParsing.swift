import Foundation
import LoupeFilter
import LoupeTrace

/// The filter language parsed for rules (the parser lives in `LoupeFilter`).
enum RuleFilterParsing {
    static func parse(_ text: String) throws -> TraceFilter {
        try TraceFilter.parse(text)
    }
}
