import Foundation
import Loupe
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers a pinned `URLSession`'s server-trust challenges, and keeps each refusal for the task's completion handler.
///
/// The session delegate sees the certificate chain but not the request; the completion handler sees the request
/// but only a generic "cancelled" error. Keyed by task identifier, the typed `PinningError` crosses over, so
/// the transport can throw it and record it. Only Apple platforms have server-trust challenges: elsewhere there is
/// no way to build a pinned `URLSessionTransport`, and ``answer(_:task:completionHandler:)`` declines.
final class ServerTrustPinning: Sendable {
    private let failures = Mutex<[Int: PinningError]>([:])

    #if canImport(Security) && canImport(CryptoKit)
    private let evaluator: ServerTrustEvaluator

    init(policy: PinningPolicy) {
        self.evaluator = ServerTrustEvaluator(policy: policy)
    }
    #endif

    /// Answers `challenge` and returns `true` when it is about server trust; `false` leaves it to the caller.
    func answer(
        _ challenge: URLAuthenticationChallenge,
        task: URLSessionTask,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) -> Bool {
        #if canImport(Security) && canImport(CryptoKit)
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
            return false
        }
        if let failure = evaluator.evaluate(trust, host: space.host) {
            failures.withLock { $0[task.taskIdentifier] = failure }
            completionHandler(.cancelAuthenticationChallenge, nil)
        } else {
            completionHandler(.useCredential, URLCredential(trust: trust))
        }
        return true
        #else
        return false
        #endif
    }

    /// Returns and forgets why the task with `taskIdentifier` was refused, if it was.
    func takeFailure(taskIdentifier: Int) -> PinningError? {
        failures.withLock { $0.removeValue(forKey: taskIdentifier) }
    }
}
