import Foundation
import GRPCCore
import Loupe
import LoupeTrace

/// Records every call a grpc-swift 2 client makes: add it to the client's interceptors where the client is made.
///
/// ```swift
/// let client = GRPCClient(transport: transport, interceptors: [LoupeGRPCInterceptor(recorder: inspector)])
/// ```
/// Each call is one exchange named by its method (`package.Service/Method`): a `POST` of that path to the peer,
/// whose request fields are the call's metadata (`grpc-timeout` carries its deadline) and whose response fields are
/// the server's initial metadata followed by its trailers. Every message either way is a stream message (kind
/// `grpc`) with its direction, time, size and serialized bytes; the status is the stream's close (code and
/// message), so lists show `UNAVAILABLE` where HTTP shows `503`. Metadata is redacted by name and value like
/// headers, before anything is stored.
///
/// A deadline that passes reaches interceptors as a cancellation, told apart by the clock; wrap the transport in
/// ``LoupeGRPCTransport`` so that clock starts where grpc-swift's did, before the call waited for its stream.
///
/// grpc-swift runs interceptors once per attempt, so a call its retry or hedging policy sent three times is three
/// exchanges, each with its attempt number (from `grpc-previous-rpc-attempts`). Messages are recorded as bytes when
/// they are `[UInt8]`, `Data` or swift-protobuf messages; any other type is recorded by count only.
public struct LoupeGRPCInterceptor: ClientInterceptor {
    let observer: any ClientObserver
    let now: @Sendable () -> Date
    /// The recorded call this one sends again (`loupe replay`), recorded as its replay.
    let replayOf: UUID?

    /// Records into `recorder`.
    public init(recorder: NetworkTraceInspector) {
        self.init(observer: recorder)
    }

    /// Reports to any Loupe ``ClientObserver``; `now` replaces the clock (tests).
    public init(observer: any ClientObserver, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(observer: observer, now: now, replayOf: nil)
    }

    /// Records each call as a replay of `replayOf` (``GRPCUnaryReplay``).
    package init(observer: any ClientObserver, now: @escaping @Sendable () -> Date = { Date() }, replayOf: UUID?) {
        self.observer = observer
        self.now = now
        self.replayOf = replayOf
    }

    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingClientRequest<Input>,
        context: ClientContext,
        next: (_ request: StreamingClientRequest<Input>, _ context: ClientContext) async throws
            -> StreamingClientResponse<Output>
    ) async throws -> StreamingClientResponse<Output> {
        let call = GRPCCallRecording(
            observer: observer, now: now, method: context.descriptor.fullyQualifiedMethod, peer: context.remotePeer,
            metadata: request.metadata, replayOf: replayOf, waited: GRPCStreamRequest.waited())
        var request = request
        let producer = request.producer
        request.producer = { writer in
            do {
                try await producer(RPCWriter(wrapping: RecordingRPCWriter(base: writer, call: call)))
            } catch {
                call.requestFailed(error)
                throw error
            }
        }
        let response: StreamingClientResponse<Output>
        do {
            response = try await next(request, context)
        } catch {
            call.finish(error: error)
            throw error
        }
        switch response.accepted {
        case .success(var contents):
            call.accepted(metadata: contents.metadata)
            contents.bodyParts = RPCAsyncSequence(wrapping: RecordingBodyParts(base: contents.bodyParts, call: call))
            return StreamingClientResponse(accepted: .success(contents))
        case .failure(let error):
            call.finish(error: error)
            return response
        }
    }
}
