import Foundation

/// Certificates made by `openssl` in a temporary folder when first used: a CA; a server certificate for
/// `127.0.0.1` (SAN `IP:127.0.0.1` only) signed by it; a second one it signed for another name only; a self-signed
/// server certificate for `127.0.0.1`; and an unrelated CA. Nothing is committed to the repository.
struct TestCertificates: Sendable {
    let directory: URL

    var caFile: URL { directory.appendingPathComponent("ca.pem") }
    var leafFile: URL { directory.appendingPathComponent("server.pem") }
    var leafKeyFile: URL { directory.appendingPathComponent("server.key") }
    var otherCAFile: URL { directory.appendingPathComponent("other-ca.pem") }
    /// Signed by the CA for `wrong.invalid` only.
    var wrongNameFile: URL { directory.appendingPathComponent("wrong-name.pem") }
    var wrongNameKeyFile: URL { directory.appendingPathComponent("wrong-name.key") }
    /// Self-signed, for `IP:127.0.0.1`.
    var selfSignedFile: URL { directory.appendingPathComponent("self-signed.pem") }
    var selfSignedKeyFile: URL { directory.appendingPathComponent("self-signed.key") }
    /// The server certificate followed by its CA, as a chain file.
    var chainFile: URL { directory.appendingPathComponent("chain.pem") }

    /// The openssl executable on `PATH`, if any.
    static let openssl: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("openssl") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Made once per test process; tests are skipped (see ``available``) when openssl is missing.
    static let shared: Result<TestCertificates, any Error> = Result { try make() }

    /// Whether openssl exists; the trait message tells the reader why pinning tests were skipped.
    static var available: Bool { openssl != nil }

    static func get() throws -> TestCertificates { try shared.get() }

    private static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-pinning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let extensions = """
            subjectAltName=IP:127.0.0.1
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=serverAuth
            """
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let ca = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "3",
                 "-subj", "/CN=Loupe Test CA"] + ca, in: directory)
        try run(["req", "-x509"] + ec + ["-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "3",
                 "-subj", "/CN=Unrelated CA"] + ca, in: directory)
        for (name, serial, san) in [("server", "2", "IP:127.0.0.1"), ("wrong-name", "3", "DNS:wrong.invalid")] {
            try extensions.replacingOccurrences(of: "IP:127.0.0.1", with: san)
                .write(to: directory.appendingPathComponent("\(name).ext"), atomically: true, encoding: .utf8)
            try run(["req"] + ec + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)"], in: directory)
            try run(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                     "-days", "2", "-extfile", "\(name).ext", "-out", "\(name).pem"], in: directory)
        }
        try run(["req", "-x509"] + ec + ["-keyout", "self-signed.key", "-out", "self-signed.pem", "-days", "2",
                 "-subj", "/CN=self-signed", "-addext", "subjectAltName=IP:127.0.0.1"], in: directory)
        let chain = try String(contentsOf: directory.appendingPathComponent("server.pem"), encoding: .utf8)
            + String(contentsOf: directory.appendingPathComponent("ca.pem"), encoding: .utf8)
        try chain.write(to: directory.appendingPathComponent("chain.pem"), atomically: true, encoding: .utf8)
        return TestCertificates(directory: directory)
    }

    /// Runs openssl with `arguments` in `directory` and returns its standard output; throws when it fails.
    @discardableResult
    static func run(_ arguments: [String], in directory: URL) throws -> Data {
        guard let openssl else { throw OpenSSLFailure(message: "openssl not found on PATH") }
        let process = Process()
        process.executableURL = openssl
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a full pipe would otherwise block openssl forever.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OpenSSLFailure(message: "openssl \(arguments.joined(separator: " ")): " + String(decoding: message, as: UTF8.self))
        }
        return data
    }

    struct OpenSSLFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
