import Foundation

/// An upload or download in flight: its progress as it happens, and its result at the end.
///
/// ```swift
/// let download = client.download(request, to: fileURL)
/// for await step in download.progress { print(step.fractionCompleted ?? 0) }
/// let response = try await download.value
/// ```
/// Cancelling the task that awaits ``value``, or calling ``cancel()``, cancels the transfer; the progress stream
/// always ends when the transfer does.
public struct TransferTask<Value: Sendable>: Sendable {
    /// Progress values, ending when the transfer ends.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<Value, any Error>

    init(progress: AsyncStream<TransferProgress>, task: Task<Value, any Error>) {
        self.progress = progress
        self.task = task
    }

    /// The result; cancelling the awaiting task cancels the transfer.
    public var value: Value {
        get async throws {
            try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        }
    }

    /// Cancels the transfer.
    public func cancel() {
        task.cancel()
    }
}
