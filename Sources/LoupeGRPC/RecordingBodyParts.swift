import GRPCCore
import Loupe

/// The response's parts, passed through to the app one by one: each message recorded as received, the trailers
/// kept, and the call finished at the end of the parts or at the error that ends them.
struct RecordingBodyParts<Message: Sendable>: AsyncSequence, Sendable {
    typealias Element = StreamingClientResponse<Message>.Contents.BodyPart
    typealias Failure = any Error

    let base: RPCAsyncSequence<Element, any Error>
    let call: GRPCCallRecording

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RPCAsyncSequence<Element, any Error>.AsyncIterator
        let call: GRPCCallRecording

        mutating func next() async throws -> Element? {
            do {
                guard let part = try await base.next() else {
                    call.finish(error: nil)
                    return nil
                }
                switch part {
                case .message(let message): call.message(.received, message)
                case .trailingMetadata(let trailers): call.trailers(trailers)
                }
                return part
            } catch {
                call.finish(error: error)
                throw error
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), call: call) }
}
