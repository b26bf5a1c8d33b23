import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

struct Event: Codable, Equatable, Sendable {
    var eventName: String
    var at: Date
}

struct PostEvent: Endpoint {
    typealias Response = Empty
    var event: Event
    var path: String { "/events" }
    var method: HTTPRequest.Method { .post }
    var body: EndpointBody {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return .jsonEncoded(event, encoder: encoder)
    }
}

struct GetEvent: JSONDecodingEndpoint {
    typealias Response = Event
    var path: String { "/events/1" }
    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

struct RawBytes: Endpoint {
    typealias Response = Data
    var path: String { "/raw" }
}

struct RawText: Endpoint {
    typealias Response = String
    var path: String { "/text" }
}

@Suite struct EndpointBodyTests {
    static let event = Event(eventName: "launch", at: Date(timeIntervalSince1970: 1_700_000_000))
    static let eventJSON = #"{"at":"2023-11-14T22:13:20Z","event_name":"launch"}"#

    @Test func anEndpointCanEncodeWithItsOwnEncoder() async throws {
        let seen = Recorded<(HTTPFields, Data)>()
        let client = makeComponentsClient(MockTransport { request, body, _ in
            seen.append((request.headerFields, try await ReadBody.read(body).bytes))
            return RawResponse(status: .noContent)
        })
        _ = try await client.send(PostEvent(event: Self.event))
        let (fields, bytes) = try #require(seen.values.first)
        #expect(fields[.contentType] == "application/json")
        let decoded = try JSONSerialization.jsonObject(with: bytes) as? [String: String]
        #expect(decoded == ["event_name": "launch", "at": "2023-11-14T22:13:20Z"])
    }

    @Test func anEndpointCanDecodeWithItsOwnDecoder() async throws {
        let client = makeComponentsClient(CannedTransport(status: .ok, json: Self.eventJSON))
        #expect(try await client.send(GetEvent()) == Self.event)
    }

    @Test func rawDataAndStringResponsesSkipJSON() async throws {
        let bytes = Data([0xFF, 0x00, 0x7B, 0x80])
        let client = makeComponentsClient(RoutedTransport([
            .init(.get, .exact("/v1/raw"), response: RawResponse(status: .ok, body: bytes)),
            .init(.get, .exact("/v1/text"), response: RawResponse(status: .ok, body: Data("héllo {not json".utf8))),
        ]))
        #expect(try await client.send(RawBytes()) == bytes)
        #expect(try await client.send(RawText()) == "héllo {not json")
    }

    @Test func aStringResponseThatIsNotUTF8FailsAtDecoding() async throws {
        let client = makeComponentsClient(CannedTransport(RawResponse(status: .ok, body: Data([0xFF, 0xFE]))))
        let error = await #expect(throws: ClientError.self) { try await client.send(RawText()) }
        #expect(error?.stage == .decoding)
    }
}
