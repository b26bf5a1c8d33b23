import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// A streamed body is held to its `Content-Length` only where that counts the bytes the transport hands on
/// (issue 26, items 1 and 2): not for a body the transport inflated, nor for a response that has no content.
@Suite struct DeclaredBodyLengthTests {
    static func response(_ status: HTTPResponse.Status, _ fields: HTTPFields, body: Data) -> StreamedResponse {
        StreamedResponse(head: HTTPResponse(status: status, headerFields: fields), body: AsyncThrowingStream { continuation in
            if !body.isEmpty { continuation.yield(body) }
            continuation.finish()
        })
    }

    static func send(_ method: HTTPRequest.Method, answer: @escaping @Sendable () -> StreamedResponse) async throws -> (ClientResponse<Int64>, RecordingSink) {
        let sink = RecordingSink(canRestart: true)
        let client = makeComponentsClient(StreamingMockTransport { _, _, _ in answer() })
        let request = HTTPRequest(method: method, url: URL(string: "https://api.example.com/items")!)
        return (try await client.execute(request, streamingBodyTo: sink), sink)
    }

    @Test(arguments: ["gzip", "deflate", "GZIP", "br", "gzip, gzip"])
    func anEncodedBodyLongerThanItsWireLengthIsComplete(coding: String) async throws {
        // 183 decoded bytes from 157 on the wire: what the server sent.
        let decoded = Data(repeating: UInt8(ascii: "a"), count: 183)
        let (response, sink) = try await Self.send(.get) {
            Self.response(.ok, [.contentEncoding: coding, .contentLength: "157"], body: decoded)
        }
        #expect(response.value == 183 && sink.bytes == decoded)
    }

    @Test(arguments: [(HTTPRequest.Method.head, 200), (.get, 204), (.get, 304), (.post, 204)])
    func aResponseWithoutContentIsCompleteWhateverItsLengthSays(method: HTTPRequest.Method, status: Int) async throws {
        let (response, sink) = try await Self.send(method) {
            Self.response(HTTPResponse.Status(code: status), [.contentLength: "6"], body: Data())
        }
        #expect(response.value == 0 && response.status.code == status && sink.bytes.isEmpty)
    }

    @Test func anUnencodedBodyShorterThanItsLengthStillFails() async throws {
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.send(.get) {
                Self.response(.ok, [.contentEncoding: "identity", .contentLength: "10"], body: Data(repeating: 1, count: 4))
            }
        }
        #expect((error?.underlyingError as? TransportError)?.message.contains("the body ended after 4 of 10 bytes") == true)
    }

    @Test func aBrokenEncodedBodyIsNotReportedAgainstItsWireLength() async throws {
        let observer = InMemoryClientObserver()
        let client = makeComponentsClient(StreamingMockTransport { _, _, _ in
            let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            continuation.yield(Data(repeating: 7, count: 300))
            continuation.finish(throwing: TransportError(.connectionReset, "peer closed"))
            return StreamedResponse(head: HTTPResponse(status: .ok, headerFields: [.contentEncoding: "gzip", .contentLength: "157"]), body: body)
        }, observer: observer)
        let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/items")!)
        _ = await #expect(throws: ClientError.self) { try await client.execute(request, streamingBodyTo: RecordingSink(canRestart: true)) }
        let incomplete = try #require(observer.events.first { $0.kind == .incompleteResponse })
        #expect(incomplete.message == "only 300 body bytes arrived (HTTP 200): connection reset", "not '300 of 157'")
        #expect(incomplete.attributes["expectedBytes"] == nil)
    }

    @Test func theExpectedLengthIsTheHeadsOnlyWhereItCountsTheBytesHandedOn() {
        let head = { (status: HTTPResponse.Status, fields: HTTPFields) in HTTPResponse(status: status, headerFields: fields) }
        #expect(StreamedResponse.expectedBodyLength(of: head(.ok, [.contentLength: "12"]), answering: .get) == 12)
        #expect(StreamedResponse.expectedBodyLength(of: head(.ok, [.contentLength: "12", .contentEncoding: "identity"]), answering: .get) == 12)
        #expect(StreamedResponse.expectedBodyLength(of: head(.ok, [.contentLength: "12", .contentEncoding: "gzip"]), answering: .get) == nil)
        #expect(StreamedResponse.expectedBodyLength(of: head(.ok, [.contentLength: "12"]), answering: .head) == nil)
        #expect(StreamedResponse.expectedBodyLength(of: head(.noContent, [.contentLength: "12"]), answering: .get) == nil)
        #expect(StreamedResponse.expectedBodyLength(of: head(.notModified, [.contentLength: "12"]), answering: .get) == nil)
        #expect(StreamedResponse.expectedBodyLength(of: head(.ok, [:]), answering: .get) == nil)
    }
}
