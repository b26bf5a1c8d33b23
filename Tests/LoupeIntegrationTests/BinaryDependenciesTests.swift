#if os(Linux)
import Foundation
import Testing

/// What the dynamic loader maps for the real `loupe` binary before `main` runs (DECISIONS 5).
@Suite("The loupe binary's shared libraries")
struct BinaryDependenciesTests {
    /// FoundationNetworking brings libcurl and some thirty libraries with it: about 6 ms and 7 MB on every command's
    /// start. Only `LoupeURLSession` may import it, and the binary does not depend on that module.
    @Test("loupe loads neither FoundationNetworking nor libcurl")
    func noFoundationNetworking() throws {
        let binary = try #require(CrossProcessTests.loupeBinary, "build the loupe executable first (swift build)")
        let libraries = try Self.sharedLibraries(of: binary)
        #expect(libraries.contains { $0.hasPrefix("libFoundationEssentials") }, "ldd listed no Foundation: \(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libFoundationNetworking") || $0.hasPrefix("libcurl") }, "\(libraries)")
    }

    /// The file names `ldd` lists for `binary` (what the loader maps, dependencies of dependencies included).
    static func sharedLibraries(of binary: URL) throws -> [String] {
        let ldd = try #require(["/usr/bin/ldd", "/bin/ldd"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ldd)
        process.arguments = [binary.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ldd failed: \(text)")
        return text.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: \.isWhitespace).first.map { String($0.split(separator: "/").last ?? $0) }
        }
    }
}
#endif
