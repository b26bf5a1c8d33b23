import Foundation
import HTTPTypes
import Loupe

/// A transport that parks every request until its task is cancelled, announcing each arrival on `arrived`.
struct ParkingTransport: ClientTransport {
    let arrived: AsyncStream<Void>.Continuation

    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        arrived.yield()
        // A stream that never yields ends only when the task is cancelled.
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        for await _ in never {}
        throw CancellationError()
    }
}
