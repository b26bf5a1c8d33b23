// swift-tools-version: 6.1
import PackageDescription

// A separate package so the root package (and its users) never pull in package-benchmark or jemalloc.
// Run from this folder:
//   swift package --allow-writing-to-package-directory benchmark --format markdown

let package = Package(
    name: "LoupeBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Loupe", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        // The loopback benchmarks: a local server, and the raw AsyncHTTPClient baseline.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
        // The gRPC budget (issue 47): grpc-swift's client and server on its HTTP/2 transport.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
    ],
    targets: [
        .executableTarget(
            name: "LoupeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeFilter", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "LoupeAsyncHTTPClient", package: "Loupe"),
                "LoopbackServer",
                "IngestBaseline",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "LoupeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The TUI's budgets (issue 10): `TUIApp` on an in-memory screen over a 1M-exchange store, with
        // raw-SQL baselines. A target of its own so each benchmark process holds the TUI alone (peak RSS).
        .executableTarget(
            name: "TUIBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LoupeTUI", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                "SyntheticStores",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "TUIBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Cached synthetic stores (LoupeTrace's `SyntheticStore`), for the TUI benchmarks and `tui-budget.sh`.
        .target(
            name: "SyntheticStores",
            dependencies: [.product(name: "LoupeTrace", package: "Loupe")],
            path: "Tools/SyntheticStores"
        ),
        .executableTarget(
            name: "make-synthetic-store",
            dependencies: ["SyntheticStores"],
            path: "Tools/MakeSyntheticStore"
        ),
        // Live load for the TUI's screens: RATE exchanges/s recorded through the real recorder.
        .executableTarget(
            name: "feed-store",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/FeedStore"
        ),
        // The loopback server both executables start (under Tools/, so the benchmark plugin does not take it for
        // a benchmark target).
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/LoopbackServer"
        ),
        // The recorder's ingest against raw GRDB inserts of the same rows: shared by the Recorder benchmarks and
        // `ingest-budget`, which prints the budget's figures from interleaved rounds and runs under `perf record`.
        .target(
            name: "IngestBaseline",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tools/IngestBaseline"
        ),
        .executableTarget(
            name: "ingest-budget",
            dependencies: ["IngestBaseline", .product(name: "LoupeTrace", package: "Loupe"), .product(name: "LoupeQuery", package: "Loupe")],
            path: "Tools/IngestBudget"
        ),
        // The four JSON users (HAR import/export, body redaction, the diff's parser, the detail view's layout) as
        // plain loops for `json-callgrind.sh` to count instructions under callgrind (issue 27 item 2).
        .executableTarget(
            name: "json-workloads",
            dependencies: [
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeFormats", package: "Loupe"),
                .product(name: "LoupeReplay", package: "Loupe"),
                .product(name: "LoupeTUI", package: "Loupe"),
            ],
            // The diff's parser and the detail view's tabs are `package` API: the workloads reach them through
            // the small `@_spi(Benchmarks)` entry points of LoupeReplay and LoupeTUI (JOURNAL J217).
            path: "Tools/JSONWorkloads"
        ),
        // A plain request loop to run under `perf record` (the benchmark runner only measures under its plugin).
        .executableTarget(
            name: "LoupeProfile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeRules", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "LoupeAsyncHTTPClient", package: "Loupe"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "LoopbackServer",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/LoupeProfile"
        ),
        // Streams' recording budget (issue 30, stream-budget.sh): one event stream from an in-process transport, with
        // and without the recorder.
        .executableTarget(
            name: "StreamProfile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/StreamProfile"
        ),
        // The live link's budgets (issue 28, link-budget.sh): the app's side with and without a link, and the
        // listener as `loupe listen` runs it. No HTTP client or server, so a release build needs only the link's parts.
        .executableTarget(
            name: "link-profile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "LoupeLink", package: "Loupe"),
            ],
            path: "Tools/LinkProfile"
        ),
        // Issue 32's instructions per request under callgrind (cpu-callgrind.sh): the client, the resilient stack and
        // the recorder over an in-process transport. Loupe's dependencies only (no NIO, no TLS): a quick release build.
        .executableTarget(
            name: "cpu-profile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/CPUProfile"
        ),
        // The adapters' CPU per request under callgrind (issue 31): in-process transports, and a loopback server in
        // another process for AsyncHTTPClient and URLSession.
        .executableTarget(
            name: "AdapterProfile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeOpenAPI", package: "Loupe"),
                .product(name: "LoupeAsyncHTTPClient", package: "Loupe"),
                .product(name: "LoupeURLSession", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "LoupeQuery", package: "Loupe"),
                .product(name: "LoupeTesting", package: "Loupe"),
                "LoopbackServer",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/AdapterProfile"
        ),
        // Unary gRPC calls over loopback, bare or recorded by `LoupeGRPCInterceptor` (grpc-callgrind.sh, issue 47).
        .executableTarget(
            name: "grpc-profile",
            dependencies: [
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "LoupeGRPC", package: "Loupe"),
                .product(name: "LoupeTrace", package: "Loupe"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
            ],
            path: "Tools/GRPCProfile"
        ),
    ]
)
