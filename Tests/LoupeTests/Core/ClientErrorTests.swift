import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

struct Boom: Error, Equatable {}

struct Failing: ClientMiddleware {
    nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                   next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse) async throws -> RawResponse {
        throw Boom()
    }
}

@Suite struct ClientErrorTests {
    @Test func unacceptableStatusIsValidationErrorWithResponse() async throws {
        let observer = InMemoryClientObserver()
        let client = makeClient(CannedTransport(status: .serviceUnavailable, json: #"{"error":"down"}"#), observer: observer)
        let error = await #expect(throws: ClientError.self) { try await client.send(GetUser(id: 1)) }
        #expect(error?.stage == .validation)
        #expect(error?.response?.status.code == 503)
        #expect(error?.request?.method == .get)
        #expect(error?.operation == "GET /users/1")
        #expect(observer.finishedExchanges.map(\.outcome) == [.httpError])
    }

    @Test func undecodableBodyIsDecodingError() async throws {
        let client = makeClient(CannedTransport(status: .ok, json: "not json"))
        let error = await #expect(throws: ClientError.self) { try await client.send(GetUser(id: 1)) }
        #expect(error?.stage == .decoding)
        #expect(error?.underlyingError is DecodingError)
    }

    @Test func transportErrorIsTransportStage() async throws {
        let observer = InMemoryClientObserver()
        let client = makeClient(MockTransport { _, _, _ in throw TransportError(.connectFailed, "refused") }, observer: observer)
        let error = await #expect(throws: ClientError.self) { try await client.send(GetUser(id: 1)) }
        #expect(error?.stage == .transport)
        #expect((error?.underlyingError as? TransportError)?.kind == .connectFailed)
        #expect(observer.finishedExchanges.map(\.outcome) == [.transportError])
        #expect(observer.finishedAttempts.count == 1)
        #expect(observer.finishedAttempts.first?.error != nil)
    }

    @Test func middlewareErrorIsMiddlewareStage() async throws {
        let client = makeClient(CannedTransport(status: .ok, json: "{}"), middlewares: [Failing()])
        let error = await #expect(throws: ClientError.self) { try await client.send(Ping()) }
        #expect(error?.stage == .middleware)
        #expect(error?.underlyingError as? Boom == Boom())
    }

    @Test func cancellingTheCallerCancelsTheTransport() async throws {
        let observer = InMemoryClientObserver()
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let client = makeClient(ParkingTransport(arrived: enteredContinuation), observer: observer)
        let task = Task { try await client.send(Ping()) }
        for await _ in entered { break }
        task.cancel()
        guard let error = await clientError(of: task) else { return }
        #expect(error.stage == .cancelled)
        #expect(observer.finishedExchanges.map(\.outcome) == [.cancelled])
    }
}
