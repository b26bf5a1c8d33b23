import Foundation
import HTTPTypes
@testable import Loupe
import LoupeAsyncHTTPClient
import Testing

/// TLS pinning on AsyncHTTPClient against a local Hummingbird HTTPS server whose certificates openssl made.
@Suite(.enabled(if: TestCertificates.available, "openssl is not on PATH: pinning tests need it to make certificates"))
struct PinningIntegrationTests {
    /// Sends `GET /hello` through a client pinned to `pins`, recording into `observer`.
    func hello(
        pinnedTo pins: [CertificatePin], on baseURL: URL, observer: InMemoryClientObserver = InMemoryClientObserver()
    ) async throws -> ClientResponse<Data> {
        let transport = try AsyncHTTPClientTransport(pinning: PinningPolicy(pins: pins))
        let client = Client(baseURL: baseURL, transport: transport, observer: observer)
        let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("hello"))
        do {
            let response = try await client.execute(request, options: RequestOptions(timeout: .seconds(10)))
            try await transport.shutdown()
            return response
        } catch {
            try await transport.shutdown()
            throw error
        }
    }

    @Test func pinnedToTheIssuingCAConnects() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let response = try await hello(pinnedTo: CertificatePin.certificates(contentsOf: certificates.caFile), on: baseURL)
            #expect(response.status.code == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        }
    }

    @Test func pinnedToTheLeafConnects() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let response = try await hello(pinnedTo: CertificatePin.certificates(contentsOf: certificates.leafFile), on: baseURL)
            #expect(response.status.code == 200)
        }
    }

    @Test func aBackupPinKeepsTheConnectionWorking() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let pins = try CertificatePin.certificates(contentsOf: certificates.otherCAFile)
                + CertificatePin.certificates(contentsOf: certificates.caFile)
            #expect(try await hello(pinnedTo: pins, on: baseURL).status.code == 200)
        }
    }

    @Test func pinnedToAnUnrelatedCAFailsClosedAndIsRecorded() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let observer = InMemoryClientObserver()
            let pins = try CertificatePin.certificates(contentsOf: certificates.otherCAFile)
            let error = await #expect(throws: ClientError.self) { try await hello(pinnedTo: pins, on: baseURL, observer: observer) }
            let transportError = try #require(error?.underlyingError as? TransportError)
            #expect(error?.stage == .transport)
            #expect(transportError.kind == .tls)
            #expect(transportError.message.contains("certificate pinning failed for 127.0.0.1: no matching pin (1 pin)"))
            #expect(transportError.message.contains("CERTIFICATE_VERIFY_FAILED"))
            let events = observer.events.filter { $0.kind == .pinningFailure }
            #expect(events.count == 1)
            #expect(events.first?.attributes["host"] == "127.0.0.1")
            #expect(events.first?.attributes["reason"] == "no matching pin")
            #expect(events.first?.exchangeID == error?.exchangeID)
            #expect(observer.finishedExchanges.map(\.outcome) == [.transportError])
        }
    }

    @Test func theHostNameIsStillCheckedWhenARootIsPinned() async throws {
        let certificates = try TestCertificates.get()
        // Signed by the pinned CA, but for wrong.invalid only. (NIOSSL matches an IP SAN against the peer's socket
        // address, so a certificate naming 127.0.0.1 would pass for "localhost" too: the name must differ.)
        try await withTLSTestServer(certificates, presenting: certificates.wrongNameFile, key: certificates.wrongNameKeyFile) { baseURL in
            let observer = InMemoryClientObserver()
            let pins = try CertificatePin.certificates(contentsOf: certificates.caFile)
            let error = await #expect(throws: ClientError.self) { try await hello(pinnedTo: pins, on: baseURL, observer: observer) }
            #expect((error?.underlyingError as? TransportError)?.kind == .tls)
            #expect(observer.events.first { $0.kind == .pinningFailure }?.attributes["reason"] == "hostname mismatch")
        }
    }

    @Test func anotherServerCertificateOfTheSameCAIsRefusedWhenTheLeafIsPinned() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let observer = InMemoryClientObserver()
            let pins = try CertificatePin.certificates(contentsOf: certificates.wrongNameFile)
            let error = await #expect(throws: ClientError.self) { try await hello(pinnedTo: pins, on: baseURL, observer: observer) }
            let message = try #require((error?.underlyingError as? TransportError)?.message)
            #expect(message.hasPrefix("certificate pinning failed for 127.0.0.1: no matching pin (1 pin): the server's certificate"))
            #expect(message.contains("is not pinned"))
            #expect(observer.events.filter { $0.kind == .pinningFailure }.count == 1)
            #expect(observer.finishedAttempts.count == 1)
        }
    }

    @Test func aSelfSignedServerCertificateCanBeItsOwnAnchor() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates, presenting: certificates.selfSignedFile, key: certificates.selfSignedKeyFile) { baseURL in
            let pins = try CertificatePin.certificates(contentsOf: certificates.selfSignedFile)
            #expect(try await hello(pinnedTo: pins, on: baseURL).status.code == 200)
        }
    }

    @Test func anUnpinnedClientReportsAPlainTLSFailure() async throws {
        let certificates = try TestCertificates.get()
        try await withTLSTestServer(certificates) { baseURL in
            let observer = InMemoryClientObserver()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), observer: observer)
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("hello"))
            // The shared client re-dials a refused handshake until the deadline: keep it short.
            let error = await #expect(throws: ClientError.self) {
                try await client.execute(request, options: RequestOptions(timeout: .seconds(2)))
            }
            #expect((error?.underlyingError as? TransportError)?.kind == .tls)
            #expect(observer.events.isEmpty)
        }
    }
}

/// Reading pins, and the SPKI framing that Apple's SPKI pinning hashes (checked against openssl's own bytes).
@Suite(.enabled(if: TestCertificates.available, "openssl is not on PATH: pin parsing tests need it"))
struct CertificatePinTests {
    @Test func aChainFileGivesOnePinPerCertificate() throws {
        let certificates = try TestCertificates.get()
        let pins = try CertificatePin.certificates(contentsOf: certificates.chainFile)
        #expect(pins.count == 2)
        let der = try TestCertificates.run(["x509", "-in", "ca.pem", "-outform", "DER"], in: certificates.directory)
        #expect(pins.last?.certificateDER == der)
        #expect(try CertificatePin.certificates(contentsOf: writeTemporary(der)) == [pins[1]])
    }

    @Test func badPinsAreRefused() throws {
        #expect(throws: PinningError.self) { try CertificatePin.certificates(pem: "no certificate here") }
        #expect(throws: PinningError.self) { try CertificatePin.certificates(pem: "-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----") }
        #expect(throws: PinningError.self) { try CertificatePin.publicKeySHA256(base64: "c2hvcnQ=") }
        #expect(throws: PinningError.self) { try PinningPolicy(pins: []) }
        let pin = try CertificatePin.publicKeySHA256(base64: "sha256/" + Data(repeating: 7, count: 32).base64EncodedString())
        #expect(pin.publicKeySHA256 == Data(repeating: 7, count: 32))
    }

    @Test func policiesAsyncHTTPClientCannotEnforceAreRefused() throws {
        let certificates = try TestCertificates.get()
        let key = Data(repeating: 1, count: 32).base64EncodedString()
        let keysOnly = try PinningPolicy.publicKeys(primary: key, backups: [key])
        #expect(throws: PinningError.self) { try AsyncHTTPClientTransport(pinning: keysOnly) }
        let mixed = try PinningPolicy(pins: CertificatePin.certificates(contentsOf: certificates.chainFile))
        let error = #expect(throws: PinningError.self) { try AsyncHTTPClientTransport(pinning: mixed) }
        #expect(error?.reason == .unsupportedPins)
    }

    @Test func selfIssuedCertificatesAreTold() throws {
        let certificates = try TestCertificates.get()
        let chain = try CertificatePin.certificates(contentsOf: certificates.chainFile)
        #expect(chain.map(\.isSelfIssued) == [false, true])
        #expect(try CertificatePin.certificates(contentsOf: certificates.selfSignedFile).first?.isSelfIssued == true)
        #expect(try CertificatePin.publicKeySHA256(Data(count: 32)).isSelfIssued == nil)
    }

    @Test(arguments: [
        (["rsa:2048"], SubjectPublicKeyInfo.Algorithm.rsa),
        (["rsa:4096"], .rsa),
        (["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], .ecP256),
        (["ec", "-pkeyopt", "ec_paramgen_curve:secp384r1"], .ecP384),
    ])
    func subjectPublicKeyInfoMatchesOpenSSL(key: [String], algorithm: SubjectPublicKeyInfo.Algorithm) throws {
        let directory = try TestCertificates.get().directory
        let name = "spki-\(UUID().uuidString)"
        try TestCertificates.run(["req", "-x509", "-newkey"] + key + ["-nodes", "-keyout", "\(name).key", "-out",
                                  "\(name).pem", "-days", "1", "-subj", "/CN=spki"], in: directory)
        let spki = try TestCertificates.run(["x509", "-in", "\(name).pem", "-pubkey", "-noout"], in: directory)
        try spki.write(to: directory.appendingPathComponent("\(name).pub"))
        let expected = try TestCertificates.run(["pkey", "-pubin", "-in", "\(name).pub", "-outform", "DER"], in: directory)
        // What SecKeyCopyExternalRepresentation returns: PKCS #1 for RSA, the uncompressed point for EC.
        let raw = algorithm == .rsa
            ? try TestCertificates.run(["rsa", "-pubin", "-in", "\(name).pub", "-RSAPublicKey_out", "-outform", "DER"], in: directory)
            : expected.suffix(algorithm == .ecP256 ? 65 : 97)
        #expect(SubjectPublicKeyInfo.der(algorithm, rawKey: Data(raw)) == expected)
    }

    @Test func policiesMatchAnyCertificateOrKeyInTheChain() throws {
        let certificate = try CertificatePin.certificate(der: Data([0x30] + Array(repeating: 1, count: 80)))
        let key = try CertificatePin.publicKeySHA256(Data(repeating: 2, count: 32))
        let policy = try PinningPolicy(pins: [certificate, key])
        #expect(policy.matches(chain: [Data([9]), certificate.certificateDER!], publicKeyHashes: []))
        #expect(policy.matches(chain: [Data([9])], publicKeyHashes: [Data(repeating: 3, count: 32), Data(repeating: 2, count: 32)]))
        #expect(!policy.matches(chain: [Data([9])], publicKeyHashes: [Data(repeating: 3, count: 32)]))
    }

    func writeTemporary(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-pin-\(UUID().uuidString).der")
        try data.write(to: url)
        return url
    }
}
