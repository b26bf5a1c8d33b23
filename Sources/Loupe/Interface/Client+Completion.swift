import Foundation

/// Cancels a request started with a completion handler.
public struct RequestHandle: Sendable {
    let task: Task<Void, Never>

    /// Cancels the request; its completion handler is called with a `.cancelled` ``ClientError``.
    public func cancel() { task.cancel() }
}

extension Client {
    /// Completion-handler form of ``send(_:)`` for callers not on async yet; `completion` runs on an arbitrary thread.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E,
        completion: @escaping @Sendable (Result<E.Response, ClientError>) -> Void
    ) -> RequestHandle {
        response(endpoint) { completion($0.map(\.value)) }
    }

    /// Completion-handler form of ``response(_:)``; `completion` runs on an arbitrary thread.
    @discardableResult
    public func response<E: Endpoint>(
        _ endpoint: E,
        completion: @escaping @Sendable (Result<ClientResponse<E.Response>, ClientError>) -> Void
    ) -> RequestHandle {
        RequestHandle(task: Task {
            do {
                completion(.success(try await response(endpoint)))
            } catch let error as ClientError {
                completion(.failure(error))
            } catch {
                // `response(_:)` only throws ClientError; this keeps the contract if that ever changes.
                completion(.failure(ClientError(operation: endpoint.operationName, request: nil, stage: .middleware, underlyingError: error)))
            }
        })
    }
}
