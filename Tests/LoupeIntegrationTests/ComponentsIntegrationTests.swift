import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import LoupeTesting
import NIOCore
import Synchronization
import Testing

/// Conditional GET, multipart upload, environments and download against real Hummingbird servers on loopback.
@Suite struct ComponentsIntegrationTests {
    @Test func etagRevalidationRoundTripReturnsTheCachedBodyOn304() async throws {
        let notModified = Atomic<Int>(0), full = Atomic<Int>(0)
        let router = Router()
        router.get("/etag") { request, _ -> Response in
            if request.headers[.ifNoneMatch] == #""v1""# {
                notModified.add(1, ordering: .relaxed)
                return Response(status: .notModified, headers: [.eTag: #""v1""#])
            }
            full.add(1, ordering: .relaxed)
            return Response(status: .ok, headers: [.eTag: #""v1""#, .contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: "the cached body")))
        }
        try await withLocalServer(router) { baseURL in
            let observer = InMemoryClientObserver()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [ConditionalGETMiddleware()], observer: observer)
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("etag"))
            let first = try await client.execute(request)
            var later: [ClientResponse<Data>] = []
            for _ in 0..<3 { later.append(try await client.execute(request)) }

            #expect(full.load(ordering: .relaxed) == 1)
            #expect(notModified.load(ordering: .relaxed) == 3)
            #expect(first.headerFields[.loupeCache] == nil)
            #expect(later.allSatisfy { $0.status == .ok && String(decoding: $0.body, as: UTF8.self) == "the cached body" })
            #expect(later.allSatisfy { $0.headerFields[.loupeCache] == "revalidated" && $0.attempts.map(\.status) == [304] })
            #expect(observer.events.filter { $0.kind == .cacheRevalidation }.count == 3)
        }
    }

    @Test func aMultipartUploadIsParsedByTheServer() async throws {
        let router = Router()
        router.post("/upload") { request, _ -> Response in
            let contentType = request.headers[.contentType] ?? ""
            let boundary = contentType.components(separatedBy: "boundary=").last ?? ""
            let body = try await request.body.collect(upTo: 32 << 20)
            let parts = MultipartParser.parts(of: Data(body.readableBytesView), boundary: boundary)
            let files = parts.filter { $0.filename != nil }
            let summary = "fields=\(parts.count - files.count) files=\(files.count) fileBytes=\(files.map(\.body.count).reduce(0, +))"
                + " length=\(request.headers[.contentLength] ?? "none") received=\(body.readableBytes)"
                + " title=\(parts.first { $0.name == "title" }.map { String(decoding: $0.body, as: UTF8.self) } ?? "")"
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: summary)))
        }
        try await withLocalServer(router) { baseURL in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-mp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("scan.pdf")
            try Data(repeating: 0x25, count: 3 * 1024 * 1024 + 5).write(to: file)
            var form = MultipartForm()
            form.append(name: "title", value: "Scan \"été\"")
            form.append(name: "note", value: "two fields, two files")
            form.append(name: "thumb", data: Data(count: 1000), filename: "thumb.png", contentType: "image/png")
            form.appendFile(name: "document", fileURL: file)
            let body = try form.makeBody()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            var request = HTTPRequest(method: .post, url: baseURL.appendingPathComponent("upload"))
            request.headerFields[.contentType] = form.contentType
            let response = try await client.execute(request, body: body)
            let length = try #require(body.length)
            #expect(String(decoding: response.body, as: UTF8.self)
                    == "fields=2 files=2 fileBytes=\(3 * 1024 * 1024 + 5 + 1000) length=\(length) received=\(length) title=Scan \"été\"")
        }
    }

    @Test func switchingEnvironmentsMovesRequestsBetweenServers() async throws {
        func named(_ name: String) -> Router<BasicRequestContext> {
            let router = Router()
            router.get("/api/whoami") { request, _ -> Response in
                let key = request.headers[HTTPField.Name("X-Env-Key")!] ?? "none"
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(name):\(key)")))
            }
            return router
        }
        try await withLocalServer(named("production")) { production in
            try await withLocalServer(named("staging")) { staging in
                let key = HTTPField.Name("X-Env-Key")!
                let environments = ServerEnvironmentSwitch([
                    ServerEnvironment(name: "production", baseURL: production.appendingPathComponent("api"), defaultHeaders: [key: "p"]),
                    ServerEnvironment(name: "staging", baseURL: staging.appendingPathComponent("api"), defaultHeaders: [key: "s"]),
                ], initial: ServerEnvironment(name: "production", baseURL: production.appendingPathComponent("api"), defaultHeaders: [key: "p"]))
                let placeholder = URL(string: "https://api.invalid/api")!
                let client = Client(baseURL: placeholder, transport: AsyncHTTPClientTransport(),
                                    middlewares: [ServerDefaultsMiddleware(environments, replacing: placeholder)])
                #expect(try await client.send(WhoAmI()) == "production:p")
                try environments.select("staging")
                #expect(try await client.send(WhoAmI()) == "staging:s")
                try environments.select("production")
                #expect(try await client.send(WhoAmI()) == "production:p")
            }
        }
    }

    @Test func aDownloadLandsInTheFileWithProgress() async throws {
        let size = 3 * 1024 * 1024 + 11
        let router = Router()
        router.get("/blob") { _, _ -> Response in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: (0..<size).map(StreamingMockTransport.patternByte(at:)))))
        }
        try await withLocalServer(router) { baseURL in
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-dl-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            let download = client.download(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("blob")), to: destination)
            var last: TransferProgress?
            for await step in download.progress { last = step }
            let response = try await download.value
            #expect(response.byteCount == Int64(size))
            #expect(last?.completedBytes == Int64(size))
            #expect(try Data(contentsOf: destination) == (try await StreamingMockTransport.patternData(byteCount: size)))
        }
    }
}

private struct WhoAmI: Endpoint {
    typealias Response = String
    var path: String { "/whoami" }
}

/// Just enough of RFC 7578 to count what arrived: parts, their names, file names and bodies.
private enum MultipartParser {
    struct Part {
        var name: String?
        var filename: String?
        var body: Data
    }

    static func parts(of body: Data, boundary: String) -> [Part] {
        let delimiter = Data("\r\n--\(boundary)".utf8)
        // The first delimiter has no CRLF before it; prefixing one makes every delimiter look alike.
        var rest = Data("\r\n".utf8) + body
        var parts: [Part] = []
        while let start = rest.range(of: delimiter) {
            rest = rest.subdata(in: start.upperBound..<rest.endIndex)
            if rest.starts(with: Data("--".utf8)) { break }
            guard let end = rest.range(of: delimiter), let headEnd = rest.range(of: Data("\r\n\r\n".utf8)) else { break }
            let head = String(decoding: rest.subdata(in: rest.startIndex..<headEnd.lowerBound), as: UTF8.self)
            parts.append(Part(name: value("name", in: head), filename: value("filename", in: head),
                              body: rest.subdata(in: headEnd.upperBound..<end.lowerBound)))
            rest = rest.subdata(in: end.lowerBound..<rest.endIndex)
        }
        return parts
    }

    static func value(_ parameter: String, in head: String) -> String? {
        guard let range = head.range(of: "; \(parameter)=\"") else { return nil }
        return head[range.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }
}
