import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct CancellationTests {
    @Test func cancelAllCancelsEveryExchangeInFlight() async throws {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let observer = InMemoryClientObserver()
        let client = makeClient(ParkingTransport(arrived: arrived), observer: observer)
        let tasks = (0..<5).map { _ in Task { try await client.send(Ping()) } }
        var count = 0
        for await _ in arrivals {
            count += 1
            if count == 5 { break }
        }
        #expect(client.inflightCount == 5)
        client.cancelAll()
        for task in tasks {
            guard let error = await clientError(of: task) else { continue }
            #expect(error.stage == .cancelled)
        }
        #expect(client.inflightCount == 0)
        #expect(observer.finishedExchanges.map(\.outcome) == Array(repeating: .cancelled, count: 5))
    }

    @Test func completionHandlerDeliversValueAndErrors() async throws {
        let client = makeClient(CannedTransport(status: .ok, json: #"{"id":3,"name":"Ken"}"#))
        let user = await withCheckedContinuation { continuation in
            client.send(GetUser(id: 3)) { continuation.resume(returning: $0) }
        }
        #expect(try user.get() == User(id: 3, name: "Ken"))

        let failing = makeClient(CannedTransport(status: .notFound, json: "{}"))
        let failure = await withCheckedContinuation { continuation in
            failing.send(GetUser(id: 3)) { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = failure else {
            Issue.record("expected failure")
            return
        }
        #expect(error.response?.status.code == 404)
    }

    @Test func completionHandleCancels() async throws {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let client = makeClient(ParkingTransport(arrived: arrived))
        let (results, delivered) = AsyncStream.makeStream(of: Result<Empty, ClientError>.self)
        let handle = client.send(Ping()) { delivered.yield($0) }
        for await _ in arrivals { break }
        handle.cancel()
        for await result in results {
            guard case .failure(let error) = result else {
                Issue.record("expected failure")
                break
            }
            #expect(error.stage == .cancelled)
            break
        }
    }
}
