// swift-tools-version: 6.1
import PackageDescription

// Swift 6 language mode everywhere (the 6.x tools default); strict concurrency is therefore on.
let package = Package(
    name: "Loupe",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Loupe", targets: ["Loupe"]),
        .library(name: "LoupeAsyncHTTPClient", targets: ["LoupeAsyncHTTPClient"]),
        .library(name: "LoupeURLSession", targets: ["LoupeURLSession"]),
        .library(name: "LoupeTrace", targets: ["LoupeTrace"]),
        .library(name: "LoupeFilter", targets: ["LoupeFilter"]),
        .library(name: "LoupeFormats", targets: ["LoupeFormats"]),
        .library(name: "LoupeReplay", targets: ["LoupeReplay"]),
        .library(name: "LoupeBoard", targets: ["LoupeBoard"]),
        .library(name: "LoupeTesting", targets: ["LoupeTesting"]),
        .library(name: "LoupeLink", targets: ["LoupeLink"]),
        .library(name: "LoupeTUI", targets: ["LoupeTUI"]),
        .library(name: "LoupeWebSocket", targets: ["LoupeWebSocket"]),
        .executable(name: "loupe", targets: ["loupe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        // Already AsyncHTTPClient's: its response decompressor, which the transport's decompression limit wraps.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // Already in the graph through swift-nio-extras: the live link's listener certificate (LoupeLink).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"6.0.0"),
        // WebSocket's protocol (RFC 6455 framing, handshake, permessage-deflate) for the client (DECISIONS 243).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        // The client: endpoints, middleware chain, errors. No I/O library of its own, and no FoundationNetworking
        // (on Linux that is libcurl and some thirty libraries more in every binary, DECISIONS 133).
        .target(
            name: "Loupe",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The default Linux transport, on AsyncHTTPClient (and TLS pinning through NIOSSL).
        .target(
            name: "LoupeAsyncHTTPClient",
            dependencies: [
                "Loupe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // The URLSession transport (and its pinning through server-trust challenges on Apple platforms).
        .target(
            name: "LoupeURLSession",
            dependencies: [
                "Loupe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),
        // The flight recorder: trace model, redaction, in-memory and SQLite stores with their queries, bounds,
        // batched writer, spans. All an app that records needs; the modules below build on it, never the reverse.
        .target(
            name: "LoupeTrace",
            dependencies: [
                "Loupe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, which GRDB is built on: the store's writer binds its rows through it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The filter language's parser and Loupe's linear-time regex engine: what turns `--filter` text into the
        // `TraceFilter` the stores take (DECISIONS 191).
        .target(name: "LoupeFilter", dependencies: ["LoupeTrace"]),
        // Files in and out: HAR (streamed reader and writer, and `loupe redact`'s rewrite), cURL commands, and
        // recorded text made safe for a terminal.
        .target(name: "LoupeFormats", dependencies: ["Loupe", "LoupeTrace"]),
        // Replaying recorded exchanges, and the diff that compares a replay with its original.
        .target(
            name: "LoupeReplay",
            dependencies: ["Loupe", "LoupeTrace", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // The boards: circuit breakers and traffic metrics folded from a store's activity.
        .target(
            name: "LoupeBoard",
            dependencies: [
                "Loupe", "LoupeTrace",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The live link: an app streams its recorded exchanges over TLS to `loupe listen` / `loupe tui --listen`.
        // NIO lives here, not in `Loupe` or `LoupeTrace`: the recorder reaches it through `TraceForwarding`.
        .target(
            name: "LoupeLink",
            dependencies: [
                "Loupe", "LoupeTrace",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Test doubles shipped as a product, like HummingbirdTesting; cassettes are read and written as LoupeTrace
        // stores or HAR files, through its redaction.
        .target(
            name: "LoupeTesting",
            dependencies: [
                "Loupe", "LoupeTrace", "LoupeFormats", "LoupeReplay",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The inspector's model, update and rendering into a cell buffer. No curses here.
        .target(
            name: "LoupeTUI",
            dependencies: ["Loupe", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay", "LoupeBoard"]
        ),
        // WebSocket's protocol for `client.webSocket` on NIO: hummingbird-websocket's client (DECISIONS 243).
        .target(
            name: "LoupeWebSocket",
            dependencies: [
                "Loupe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSCompression", package: "hummingbird-websocket"),
            ]
        ),
        // ncursesw, reached only by the one curses Screen in the `loupe` executable.
        .systemLibrary(
            name: "CNcurses",
            path: "Sources/CNcurses",
            providers: [.apt(["libncurses-dev"]), .brew(["ncurses"])]
        ),
        // glibc's `mallopt`, for the commands that stream large values (MallocTuning).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CStdio", path: "Sources/CStdio"),
        // The flaky API and the traffic scenario behind `loupe demo`.
        .target(
            name: "LoupeDemo",
            dependencies: [
                "Loupe", "LoupeAsyncHTTPClient", "LoupeTrace",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Demo/Sources/LoupeDemo"
        ),
        .executableTarget(
            name: "loupe",
            dependencies: [
                "Loupe", "LoupeAsyncHTTPClient", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay", "LoupeBoard",
                "LoupeTUI", "LoupeDemo", "LoupeLink", "LoupeWebSocket", "CNcurses", "CMalloc", "CStdio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .testTarget(
            name: "LoupeTests",
            dependencies: [
                "Loupe", "LoupeTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "LoupeTraceTests",
            dependencies: [
                "Loupe", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay", "LoupeBoard", "LoupeTesting",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .testTarget(
            name: "LoupeTUITests",
            dependencies: ["Loupe", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay", "LoupeTUI"]
        ),
        // Framing and state machines in-process; the listener and the app's side on 127.0.0.1.
        .testTarget(
            name: "LoupeLinkTests",
            dependencies: [
                "Loupe", "LoupeTrace", "LoupeLink", "LoupeTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The `loupe` executable's own logic (argument types, error lines, printers), through `@testable import loupe`.
        .testTarget(
            name: "LoupeCLITests",
            dependencies: [
                "loupe", "Loupe", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay", "LoupeTUI", "LoupeTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "LoupeIntegrationTests",
            dependencies: [
                "Loupe", "LoupeAsyncHTTPClient", "LoupeURLSession", "LoupeTrace", "LoupeFilter", "LoupeFormats", "LoupeReplay",
                "LoupeBoard", "LoupeTesting", "LoupeDemo", "LoupeWebSocket",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
