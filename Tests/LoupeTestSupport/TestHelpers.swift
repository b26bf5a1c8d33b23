import Foundation

extension Result {
    /// The error, when it failed.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Whether two optional dates are within a microsecond (phase arithmetic in milliseconds is not exact).
func sameMicrosecond(_ lhs: Date?, _ rhs: Date?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    return abs(lhs.timeIntervalSince(rhs)) < 1e-6
}
