import Foundation
import HTTPTypes

extension RetryPolicy {
    /// Why `outcome` is worth retrying by default (`503`, `connection reset`), or `nil` when it is not.
    public func retryReason(for outcome: Result<RawResponse, any Error>) -> String? {
        switch outcome {
        case .success(let response):
            return retryableStatuses.contains(response.status.code) ? "\(response.status.code)" : nil
        case .failure(let error):
            guard let failure = error as? TransportError, failure.kind != .deliveryInterrupted,
                  retryableErrors.contains(failure.kind) else { return nil }
            return failure.kind.description
        }
    }

    /// Whether sending `request` twice is harmless: an idempotent method, an `Idempotency-Key`, or an opt-in.
    public func allowsRepeating(_ request: HTTPRequest) -> Bool {
        idempotentMethods.contains(request.method) || retryNonIdempotent
            || request.headerFields[Self.idempotencyKey] != nil
    }

    /// A short name for any outcome, used as the reason when a decider forces a retry the defaults would not make.
    static func describe(_ outcome: Result<RawResponse, any Error>) -> String {
        switch outcome {
        case .success(let response): return "\(response.status.code)"
        case .failure(let error): return (error as? TransportError)?.kind.description ?? String(describing: type(of: error))
        }
    }
}
