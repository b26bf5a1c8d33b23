import Foundation
@testable import LoupeOpenAPI
import OpenAPIRuntime
import Testing

/// A small body is read once, straight into `Data` (DECISIONS 151): the app still gets every byte, once or again.
@Suite struct SmallBodyTests {
    static func chunks(_ parts: [String], length: Int64) -> HTTPBody {
        let stream = AsyncStream<HTTPBody.ByteChunk> { continuation in
            for part in parts { continuation.yield(Array(part.utf8)[...]) }
            continuation.finish()
        }
        return HTTPBody(stream, length: .known(length))  // iterable once
    }

    @Test func aBodyReadableOnceIsHandedOnWithEveryByteInOneOrManyChunks() async throws {
        for parts in [[#"{"id":1}"#], [#"{"id""#, ":1", "}"]] {
            let (bytes, body) = try await OpenAPIRequest.smallBody(Self.chunks(parts, length: 8), cap: 1024)
            #expect(bytes == Data(#"{"id":1}"#.utf8))
            let handedOn = try await String(collecting: try #require(body), upTo: 1024)
            #expect(handedOn == #"{"id":1}"#)
        }
    }

    @Test func aBodyReadableAgainIsHandedOnAsItWasAndAnEmptyOneIsRecordedEmpty() async throws {
        let original = HTTPBody(#"{"ok":true}"#)
        let (bytes, body) = try await OpenAPIRequest.smallBody(original, cap: 1024)
        #expect(bytes == Data(#"{"ok":true}"#.utf8) && body === original)
        let (none, empty) = try await OpenAPIRequest.smallBody(Self.chunks([], length: 0), cap: 1024)
        #expect(none == Data())
        #expect(try await String(collecting: try #require(empty), upTo: 1024) == "")
    }

    @Test func aBodyLongerThanItsLengthPastTheCapFailsAndALongOrUnknownOneIsLeftStreaming() async throws {
        await #expect(throws: OpenAPIRequest.LongerThanItsLength.self) {
            _ = try await OpenAPIRequest.smallBody(Self.chunks(["12345", "67890"], length: 4), cap: 8)
        }
        let long = Self.chunks(["123456789"], length: 9)
        let (skipped, same) = try await OpenAPIRequest.smallBody(long, cap: 8)
        #expect(skipped == nil && same === long)
        let unknown = HTTPBody(AsyncStream<HTTPBody.ByteChunk> { $0.finish() }, length: .unknown)
        #expect(try await OpenAPIRequest.smallBody(unknown, cap: 8).bytes == nil)
    }
}
