import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

extension FlakyAPI {
    /// The answer `/completions` streams, one token per event.
    public static let completionTokens = ["Loupe", " records", " every", " token", " of", " a", " streamed", " answer", ",",
                                          " with", " its", " timing", ":", " time", " to", " first", " token", " and",
                                          " the", " gaps", "."]
    /// Counts one server's fresh `/completions` streams so every third is cut, deterministically.
    private final class StreamCounter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// A stream cut on purpose: Hummingbird drops the connection mid-body.
    struct StreamCut: Error {}

    /// The wait before token `index` (1-based): a slow first token (the model thinking), then 15–60 ms apart.
    static func tokenPause(_ index: Int) -> Duration {
        index == 1 ? .milliseconds(250) : .milliseconds(15 + (index * 37) % 46)
    }

    /// `/completions`: a model-like answer as server-sent events (`id: N`, `event: token`, `retry: 300`), paced like
    /// a model. Every third fresh stream is dropped after half the tokens without ending its event stream; the
    /// client reconnects with `Last-Event-ID` and the rest follows from the next token. A reconnection after the
    /// last token is answered 204: the stream is over.
    static func addCompletions(to router: Router<BasicRequestContext>) {
        let counter = StreamCounter()
        router.get("/completions") { request, _ in
            let last = HTTPField.Name("Last-Event-ID").flatMap { request.headers[$0] }.flatMap { Int($0) } ?? 0
            let tokens = completionTokens
            guard last < tokens.count else { return Response(status: .noContent) }
            let fresh = last == 0
            let cutAfter = fresh && counter.value.wrappingAdd(1, ordering: .relaxed).oldValue % 3 == 2 ? tokens.count / 2 : nil
            let body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 300\n\n"))
                for index in (last + 1)...tokens.count {
                    try await Task.sleep(for: tokenPause(index))
                    try await writer.write(ByteBuffer(string: "id: \(index)\nevent: token\ndata: \(tokens[index - 1])\n\n"))
                    if index == cutAfter { throw StreamCut() }
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }
}
