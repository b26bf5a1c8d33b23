import Foundation
import LoupeFormats
@_spi(Benchmarks) import LoupeReplay
@_spi(Benchmarks) import LoupeTUI
import LoupeTrace

// The four users of the JSON tokenizer (DECISIONS 82; JOURNAL J214–J219), each doing its work ROUNDS times on the same bodies,
// for `Benchmarks/json-callgrind.sh` to count instructions under callgrind (one workload per process, so each
// count is that workload's alone plus a small fixed start-up).
//
// Usage: json-workloads import|export|redact|diff|detail|search [ROUNDS]

/// A JSON body of about `size` bytes shaped like an API's: objects of strings (some escaped, some non-ASCII),
/// numbers kept as text, literals, nested arrays.
func body(_ size: Int, seed: Int) -> Data {
    var text = "{\"items\": ["
    var index = 0
    while text.utf8.count < size {
        if index > 0 { text += ", " }
        text += """
        {"id": \(seed * 100_000 + index), "name": "item \(index) \\"quoted\\" caf\u{e9}", "price": \(index).10, \
        "ratio": 1.5e-3, "token": "secret-\(index)", "active": \(index % 2 == 0), "note": null, \
        "tags": ["a", "b\\n", "\\u00e9"], "nested": {"deep": {"deeper": [\(index), \(index + 1)]}}}
        """
        index += 1
    }
    text += "], \"count\": \(index)}"
    return Data(text.utf8)
}

func exchanges(_ count: Int, bodySize: Int) -> [TraceExchange] {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    return (0..<count).map { index in
        let response = body(bodySize, seed: index)
        return TraceExchange(
            id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!, operation: "items",
            method: "GET", url: "https://api.example.com/items?page=\(index)", startedAt: start,
            endedAt: start.addingTimeInterval(0.25), outcome: .success, status: 200,
            requestHeaders: [TraceHeader(name: "Accept", value: "application/json")],
            responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: TraceBody(data: response, size: response.count, isTruncated: false))
    }
}

let arguments = CommandLine.arguments
let workload = arguments.count > 1 ? arguments[1] : "diff"
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10
var sink = 0

switch workload {
case "import":
    // 20 entries of a 64 KiB JSON body each, read by the streaming HAR reader.
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("json-workloads-\(getpid()).har")
    try HARExporter().data(for: exchanges(20, bodySize: 64 << 10)).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    for _ in 0..<rounds {
        sink += try HARImporter().forEachExchange(contentsOf: url) { sink += $0.responseBody?.data.count ?? 0 }
    }
case "export":
    let recorded = exchanges(20, bodySize: 64 << 10)
    for _ in 0..<rounds { sink += try HARExporter().data(for: recorded).count }
case "redact":
    let policy = RedactionPolicy(jsonFieldNames: ["token", "price"])
    let data = body(256 << 10, seed: 1)
    for _ in 0..<rounds { sink += policy.redact(body: data, contentType: "application/json").count }
case "diff":
    let old = body(256 << 10, seed: 1), new = body(256 << 10, seed: 2)
    for _ in 0..<rounds {
        sink += ReplayBenchmarks.diffParses(old) ? 1 : 0
        sink += ReplayBenchmarks.diffParses(new) ? 1 : 0
    }
case "detail", "search":
    // The Response tab of a 1 MiB JSON body: its layout and the lines a screen shows (detail), or the text of
    // every line, as a search through the body reads it (search).
    let exchange = exchanges(1, bodySize: 1 << 20)[0]
    sink += DetailBenchmarks.responseTab(of: exchange, rounds: rounds, everyLine: workload == "search")
default:
    FileHandle.standardError.write(Data("json-workloads: unknown workload \(workload)\n".utf8))
    exit(2)
}
print(workload, rounds, sink)
