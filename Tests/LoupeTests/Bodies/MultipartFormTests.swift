import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

struct UploadPhoto: Endpoint {
    typealias Response = Empty
    var form: MultipartForm
    var path: String { "/photos" }
    var method: HTTPRequest.Method { .post }
    var body: EndpointBody { .multipart(form) }
}

@Suite struct MultipartFormTests {
    @Test func fieldsDataAndAFileAreEncodedByteForByte() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("photo.txt")
            try Data("PHOTO".utf8).write(to: file)
            var form = MultipartForm(boundary: "XyZ")
            form.append(name: "title", value: "Holiday")
            form.append(name: "blob", data: Data([0, 1, 2]), filename: "b.bin")
            form.appendFile(name: "photo", fileURL: file)

            let body = try form.makeBody()
            let read = try await ReadBody.read(body)
            var expected = Data()
            expected.append(Data("""
            --XyZ\r
            Content-Disposition: form-data; name="title"\r
            \r
            Holiday\r
            --XyZ\r
            Content-Disposition: form-data; name="blob"; filename="b.bin"\r
            Content-Type: application/octet-stream\r
            \r

            """.utf8))
            expected.append(Data([0, 1, 2]))
            expected.append(Data("""
            \r
            --XyZ\r
            Content-Disposition: form-data; name="photo"; filename="photo.txt"\r
            Content-Type: text/plain\r
            \r
            PHOTO\r
            --XyZ--\r

            """.utf8))
            #expect(read.bytes == expected)
            #expect(body.length == Int64(expected.count))
            #expect(body.isReplayable)
            #expect(body.bufferedData == nil)
            #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        }
    }

    @Test func namesAndFilenamesAreEscaped() async throws {
        var form = MultipartForm(boundary: "b")
        form.append(name: "a\"b\r\nc", data: Data(), filename: "ré\"sumé\n.pdf", contentType: "application/pdf\r\nX-Evil: 1")
        let text = String(decoding: try await ReadBody.read(try form.makeBody()).bytes, as: UTF8.self)
        #expect(text.contains(#"name="a%22b%0D%0Ac"; filename="ré%22sumé%0A.pdf""#))
        #expect(text.contains("Content-Type: application/pdfX-Evil: 1\r\n"))
        #expect(!text.contains("\r\nX-Evil"))
    }

    @Test func boundariesAreRandomUnlessGivenAndQuotedWhenNeeded() {
        let first = MultipartForm(), second = MultipartForm()
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.hasPrefix("loupe-") && first.boundary.count == 38)
        #expect(MultipartForm(boundary: "a:b").contentType == #"multipart/form-data; boundary="a:b""#)
    }

    @Test func aFiveMegabyteFileIsStreamedInChunksOfAtMost64KiB() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("big.bin")
            let block = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            var content = Data()
            for _ in 0..<1280 { content.append(block) }
            content.append(block.prefix(123))   // 5 MiB + 123: the last chunk is short
            try content.write(to: file)
            var form = MultipartForm(boundary: "big-boundary")
            form.append(name: "note", value: "five megabytes")
            form.appendFile(name: "file", fileURL: file, contentType: "application/octet-stream")
            let seen = Recorded<ReadBody>()
            let headers = Recorded<HTTPFields>()
            let client = makeComponentsClient(MockTransport { request, body, _ in
                headers.append(request.headerFields)
                #expect(body?.length != nil)
                seen.append(try await ReadBody.read(body))
                return RawResponse(status: .noContent)
            })
            _ = try await client.send(UploadPhoto(form: form))

            let read = try #require(seen.values.first)
            #expect(read.largestChunk <= 64 * 1024)
            #expect(read.chunkSizes.count >= content.count / (64 * 1024))
            let inMemory = try await ReadBody.read(try MultipartForm(boundary: "big-boundary", parts: [
                .text(name: "note", value: "five megabytes"),
                .data(name: "file", data: content, filename: "big.bin"),
            ]).makeBody())
            #expect(read.bytes == inMemory.bytes)
            #expect(try form.makeBody().length == Int64(read.bytes.count))
            #expect(headers.values.first?[.contentType] == "multipart/form-data; boundary=big-boundary")
        }
    }

    @Test func theBodyReplaysIdenticallyForARetry() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("a.json")
            try Data(repeating: 65, count: 200_000).write(to: file)
            var form = MultipartForm(boundary: "r")
            form.appendFile(name: "doc", fileURL: file)
            let body = try form.makeBody(chunkSize: 1000)
            let first = try await ReadBody.read(body)
            let second = try await ReadBody.read(body)
            #expect(first.bytes == second.bytes)
            #expect(first.largestChunk == 1000)
            #expect(String(decoding: first.bytes.prefix(120), as: UTF8.self).contains("Content-Type: application/json"))
        }
    }

    @Test func aMissingFileFailsAtTheEncodingStage() async throws {
        var form = MultipartForm()
        form.appendFile(name: "f", fileURL: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"))
        let client = makeComponentsClient(CannedTransport(RawResponse(status: .noContent)))
        let error = await #expect(throws: ClientError.self) { try await client.send(UploadPhoto(form: form)) }
        #expect(error?.stage == .encoding)
        #expect(error?.underlyingError is MultipartError)
    }

    @Test func aFileThatChangesSizeAfterTheLengthWasFixedFailsTheStream() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("shrinks.bin")
            try Data(count: 10_000).write(to: file)
            var form = MultipartForm()
            form.appendFile(name: "f", fileURL: file)
            let body = try form.makeBody()
            try Data(count: 10).write(to: file)
            await #expect(throws: MultipartError.self) { try await ReadBody.read(body) }
            try Data(count: 20_000).write(to: file)
            await #expect(throws: MultipartError.self) { try await ReadBody.read(body) }
        }
    }
}
