import AsyncHTTPClient
import Foundation
import Loupe
import NIOCore
import NIOHTTP1
import Synchronization

/// Hands one AsyncHTTPClient response to an async reader through a buffer bounded in bytes: the delegate side of
/// ``AsyncHTTPClientTransport/stream(_:body:context:)``.
///
/// AHC's own async body (`HTTPClientResponse.Body`) holds one chunk: the connection stops reading after each one
/// and a cross-thread wake-up restarts it, which caps a loopback download at about 1 GB/s. Here the event loop
/// keeps reading while the chunks waiting for the reader hold less than ``Watermarks/high`` bytes of memory (a
/// chunk counts its whole storage); past that, `didReceiveBodyPart`
/// returns a future that completes only once the reader has drained the buffer to ``Watermarks/low`` (AHC stops
/// reading the socket meanwhile), so memory stays bounded whatever the reader's speed.
///
/// Events from AHC arrive on the request's event loop; the reader runs on its own task. All state is behind one
/// lock; continuations and promises are completed outside it. A reader that is cancelled, or that drops the
/// pipe's ``Reader`` before the end, cancels the request (AHC closes the connection).
final class ResponseBodyPipe: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// Buffered bytes at which the connection stops reading (`high`) and resumes (`low`).
    struct Watermarks: Sendable {
        var high: Int
        var low: Int

        /// 4 MiB / 1 MiB: deep enough that a fast reader never stops the connection, small next to the
        /// 16 MB memory budget of `loupe send`.
        static let standard = Watermarks(high: 4 << 20, low: 1 << 20)
    }

    /// What one read returns: the chunks that were waiting (at least one), or the end.
    enum Read {
        case chunks([ByteBuffer], bytes: Int)
        case end
    }

    private enum Head {
        case pending
        case waiting(CheckedContinuation<HTTPResponseHead, any Error>)
        case arrived(HTTPResponseHead)
        case failed(any Error)
        case delivered
    }

    private struct State {
        var head = Head.pending
        /// Each chunk with what it holds in memory: its whole storage, which a slice of a larger read keeps alive.
        var chunks = CircularBuffer<(chunk: ByteBuffer, cost: Int)>()
        /// The memory the buffered chunks hold (their storage), which the watermarks bound.
        var bufferedBytes = 0
        /// The most bytes ever buffered at once (tests check the bound).
        var peakBytes = 0
        /// How the response ended: AHC finished it or failed it. Buffered chunks are still read first.
        var end: Result<Void, any Error>?
        /// The reader, suspended until a chunk, the end or cancellation.
        var reader: CheckedContinuation<Void, Never>?
        /// AHC, waiting for room in the buffer before it reads on.
        var producer: EventLoopPromise<Void>?
        /// The reader gave up (cancelled, or dropped the pipe): nothing more is delivered.
        var cancelled = false
        var task: HTTPClient.Task<Void>?
        /// Bounds the wait for the head when no attempt timeout bounds the whole exchange.
        var headTimer: Scheduled<Void>?
        /// Request heads sent: the first is the request, each further one a redirect's.
        var requestHeads = 0
    }

    private let state = Mutex(State())
    private let watermarks: Watermarks
    /// Most bytes handed to the reader in one read.
    private let maxReadBytes: Int

    /// Told each redirect's target (the path and query AHC sent, with its `Host`), on the event loop.
    private let redirected: (@Sendable (String) -> Void)?

    init(watermarks: Watermarks = .standard, maxReadBytes: Int = 1 << 20, redirected: (@Sendable (String) -> Void)? = nil) {
        self.redirected = redirected
        self.watermarks = watermarks
        self.maxReadBytes = max(1, maxReadBytes)
    }

    /// The most bytes that were ever waiting for the reader at once.
    var peakBufferedBytes: Int { state.withLock { $0.peakBytes } }

    /// Records the AHC task the pipe belongs to (so that cancellation reaches it) and, when `headTimeout` is set,
    /// fails the request with `HTTPClientError.deadlineExceeded` if no head has arrived by then.
    ///
    /// A redirect runs as a new AHC task that reports to the same delegate; ``didSendRequestHead(task:_:)`` makes
    /// that one the task cancellation and the head timer reach.
    func attach(_ task: HTTPClient.Task<Void>, headTimeout: TimeAmount?) {
        let timer = headTimeout.map { timeout in
            task.eventLoop.scheduleTask(in: timeout) { self.failRequest(HTTPClientError.deadlineExceeded) }
        }
        // AHC fails a request it gives up on before any delegate call without telling the delegate: a redirect
        // past the limit or back to a URL already visited fails only the task's future. The pipe ends with it, or
        // the reader would wait for a head forever.
        task.futureResult.whenFailure { error in self.finish(.failure(error)) }
        enum Action { case none, cancelTimer, cancelAll }
        let action: Action = state.withLock { state in
            if state.cancelled { return .cancelAll }
            guard state.end == nil else { return .cancelTimer }
            if state.task == nil { state.task = task }
            switch state.head {
            case .pending, .waiting:
                state.headTimer = timer
                return .none
            case .arrived, .failed, .delivered:
                return .cancelTimer
            }
        }
        switch action {
        case .none: break
        case .cancelTimer: timer?.cancel()
        case .cancelAll:
            timer?.cancel()
            task.cancel()
        }
    }

    /// Waits for the response head; cancelling the waiting task cancels the request.
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                let ready: Result<HTTPResponseHead, any Error>? = state.withLock { state in
                    switch state.head {
                    case .pending:
                        if state.cancelled { return .failure(CancellationError()) }
                        state.head = .waiting(continuation)
                        return nil
                    case .arrived(let head):
                        state.head = .delivered
                        return .success(head)
                    case .failed(let error):
                        return .failure(error)
                    case .waiting, .delivered:
                        return .failure(TransportError(.other, "the response head was awaited twice"))
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunks of the body (the first waiting, with the small ones after it: ``joins(_:after:maxReadBytes:)``),
    /// or the end; throws the error that ended the response once the chunks before it were read, or
    /// `CancellationError` once the reader was cancelled.
    func read() async throws -> Read {
        while true {
            enum Step {
                case chunks([ByteBuffer], Int, EventLoopPromise<Void>?)
                case end(Result<Void, any Error>)
                case cancelled
                case wait
            }
            let step: Step = state.withLock { state in
                if state.cancelled { return .cancelled }
                if let first = state.chunks.popFirst() {
                    var taken = [first.chunk]
                    var bytes = first.chunk.readableBytes
                    var cost = first.cost
                    while let next = state.chunks.first,
                          Self.joins(next.chunk.readableBytes, after: bytes, maxReadBytes: maxReadBytes) {
                        taken.append(next.chunk)
                        bytes += next.chunk.readableBytes
                        cost += next.cost
                        state.chunks.removeFirst()
                    }
                    state.bufferedBytes -= cost
                    var resume: EventLoopPromise<Void>?
                    if state.bufferedBytes <= watermarks.low {
                        resume = state.producer
                        state.producer = nil
                    }
                    return .chunks(taken, bytes, resume)
                }
                if let end = state.end { return .end(end) }
                return .wait
            }
            switch step {
            case .chunks(let chunks, let bytes, let resume):
                resume?.succeed(())
                return .chunks(chunks, bytes: bytes)
            case .end(.success):
                return .end
            case .end(.failure(let error)):
                throw error
            case .cancelled:
                throw CancellationError()
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let ready = state.withLock { state in
                            if state.cancelled || !state.chunks.isEmpty || state.end != nil { return true }
                            state.reader = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    cancel()
                }
            }
        }
    }

    /// Chunks under this size are joined into one read (fewer, larger writes downstream); larger ones are handed on
    /// alone, as joining means copying them, which cost more than the writes it saved.
    static let joinBelow = 64 * 1024

    /// Whether a waiting chunk of `size` bytes joins a read that holds `taken` bytes so far: only small chunks
    /// join, only while the read is small, and never past `maxReadBytes`.
    static func joins(_ size: Int, after taken: Int, maxReadBytes: Int) -> Bool {
        taken < joinBelow && size < joinBelow && taken + size <= maxReadBytes
    }

    /// The reader gives up: the request is cancelled unless it already ended, buffered chunks are dropped, and
    /// every waiter is released. Idempotent.
    func cancel() {
        struct Released {
            var task: HTTPClient.Task<Void>?
            var head: CheckedContinuation<HTTPResponseHead, any Error>?
            var reader: CheckedContinuation<Void, Never>?
            var producer: EventLoopPromise<Void>?
            var timer: Scheduled<Void>?
        }
        let released: Released? = state.withLock { state in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            var released = Released(reader: state.reader, producer: state.producer, timer: state.headTimer)
            if state.end == nil { released.task = state.task }
            switch state.head {
            case .waiting(let continuation):
                released.head = continuation
                state.head = .failed(CancellationError())
            case .pending:
                state.head = .failed(CancellationError())
            case .arrived, .failed, .delivered:
                break
            }
            state.reader = nil
            state.producer = nil
            state.headTimer = nil
            state.task = nil
            state.chunks.removeAll()
            state.bufferedBytes = 0
            return released
        }
        guard let released else { return }
        released.timer?.cancel()
        released.task?.cancel()
        released.head?.resume(throwing: CancellationError())
        released.reader?.resume()
        released.producer?.fail(CancellationError())
    }

    /// Fails the request under way (the head timer).
    private func failRequest(_ error: any Error) {
        state.withLock { $0.task }?.fail(reason: error)
    }

    // MARK: HTTPClientResponseDelegate (on the request's event loop)

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        let (cancelled, isRedirect) = state.withLock { state in
            if !state.cancelled && state.end == nil { state.task = task }
            state.requestHeads += 1
            return (state.cancelled, state.requestHeads > 1)
        }
        if isRedirect, let redirected {
            redirected("//" + (head.headers.first(name: "Host") ?? "") + head.uri)
        }
        if cancelled { task.cancel() }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let (continuation, timer, cancelled) = state.withLock { state -> (CheckedContinuation<HTTPResponseHead, any Error>?, Scheduled<Void>?, Bool) in
            let timer = state.headTimer
            if state.cancelled { return (nil, timer, true) }
            state.headTimer = nil
            switch state.head {
            case .pending:
                state.head = .arrived(head)
                return (nil, timer, false)
            case .waiting(let continuation):
                state.head = .delivered
                return (continuation, timer, false)
            case .arrived, .failed, .delivered:
                return (nil, timer, false)
            }
        }
        timer?.cancel()
        continuation?.resume(returning: head)
        // A failed future makes AHC cancel the request: the reader is gone.
        return cancelled ? task.eventLoop.makeFailedFuture(CancellationError()) : task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (reader, future) = state.withLock { state -> (CheckedContinuation<Void, Never>?, EventLoopFuture<Void>) in
            if state.cancelled { return (nil, task.eventLoop.makeFailedFuture(CancellationError())) }
            let cost = max(buffer.readableBytes, buffer.storageCapacity)
            state.chunks.append((buffer, cost))
            state.bufferedBytes += cost
            state.peakBytes = max(state.peakBytes, state.bufferedBytes)
            let reader = state.reader
            state.reader = nil
            guard state.bufferedBytes >= watermarks.high else { return (reader, task.eventLoop.makeSucceededVoidFuture()) }
            let promise = task.eventLoop.makePromise(of: Void.self)
            state.producer = promise
            return (reader, promise.futureResult)
        }
        reader?.resume()
        return future
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        finish(.failure(error))
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finish(.success(()))
    }

    private func finish(_ result: Result<Void, any Error>) {
        let (head, reader, producer, timer) = state.withLock { state in
            let timer = state.headTimer
            var head: CheckedContinuation<HTTPResponseHead, any Error>?
            if state.end == nil { state.end = result }
            // AHC reports a head before a successful end; if it did not, the head's waiter must not hang.
            let headError: any Error
            switch result {
            case .failure(let error): headError = error
            case .success: headError = TransportError(.other, "the response ended without a head")
            }
            switch state.head {
            case .waiting(let continuation):
                head = continuation
                state.head = .failed(headError)
            case .pending:
                state.head = .failed(headError)
            case .arrived, .failed, .delivered:
                break
            }
            defer {
                state.reader = nil
                state.producer = nil
                state.headTimer = nil
                state.task = nil
            }
            return (head, state.reader, state.producer, timer)
        }
        timer?.cancel()
        switch result {
        case .failure(let error):
            head?.resume(throwing: error)
            producer?.fail(error)
        case .success:
            head?.resume(throwing: TransportError(.other, "the response ended without a head"))
            producer?.succeed(())
        }
        reader?.resume()
    }
}
