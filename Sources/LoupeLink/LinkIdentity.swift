import CoreFoundation
import Crypto
import Foundation
import LoupeTrace
import NIOSSL
import SwiftASN1
import X509

/// The listener's identity: a self-signed P-256 certificate and its key, and the secret apps prove, made on first
/// use and kept (0600, in a 0700 folder) in Loupe's state folder so that the link string stays the same from one
/// run to the next: apps given it once reconnect to a restarted listener on their own.
public struct LinkIdentity: Sendable {
    /// The certificate chain and key NIOSSL serves (`loupe serve --tls` serves them too).
    package let certificate: NIOSSLCertificate
    package let privateKey: NIOSSLPrivateKey
    /// What an app pins.
    public let fingerprint: CertificateFingerprint
    /// What an app proves.
    public let secret: String
    /// The folder the files are in.
    public let folder: String

    /// `$XDG_STATE_HOME/loupe/link` (else `~/.local/state/loupe/link`).
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories.join(XDGDirectories.join(XDGDirectories.stateHome(environment: environment), "loupe"), "link")
    }

    /// Reads the identity in `folder`, making it first when the folder has none.
    ///
    /// A key or secret file readable by anyone else is refused (it must be 0600): a leaked key lets another
    /// process pose as this listener.
    public static func loadOrCreate(in folder: String = defaultFolder()) throws(LinkIdentityError) -> LinkIdentity {
        let keyPath = XDGDirectories.join(folder, "key.pem")
        let certificatePath = XDGDirectories.join(folder, "certificate.pem")
        let secretPath = XDGDirectories.join(folder, "secret")
        if !FileManager.default.fileExists(atPath: keyPath) {
            try create(folder: folder, keyPath: keyPath, certificatePath: certificatePath, secretPath: secretPath)
        }
        for path in [keyPath, secretPath] { try checkPrivate(path) }
        do {
            guard let certificate = try NIOSSLCertificate.fromPEMFile(certificatePath).first else {
                throw LinkIdentityError.unreadable(certificatePath, "no certificate in it")
            }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            let secret = try String(contentsOfFile: secretPath, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard LinkAddress.isValidSecret(secret) else { throw LinkIdentityError.unreadable(secretPath, "not a link secret") }
            let digest = Array(SHA256.hash(data: try certificate.toDERBytes()))
            return LinkIdentity(certificate: certificate, privateKey: key,
                                fingerprint: CertificateFingerprint(bytes: digest)!, secret: secret, folder: folder)
        } catch let error as LinkIdentityError {
            throw error
        } catch {
            throw .unreadable(folder, String(describing: error))
        }
    }

    /// The link string for a listener at `host`:`port` with this identity.
    public func link(host: String, port: Int) throws(LinkAddressError) -> LinkAddress {
        try LinkAddress(secret: secret, host: host, port: port, fingerprint: fingerprint)
    }

    /// Equal bytes, compared in time that depends only on the lengths: how a presented secret is checked.
    package static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// 32 random bytes as 43 characters of base64url, from the system's secure generator.
    package static func makeSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func create(folder: String, keyPath: String, certificatePath: String, secretPath: String)
        throws(LinkIdentityError)
    {
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unwritable(folder, String(describing: error))
        }
        let key = P256.Signing.PrivateKey()
        let pem: String
        do {
            let name = try DistinguishedName { CommonName("Loupe link listener") }
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(20 * 365 * 86_400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
                issuerPrivateKey: Certificate.PrivateKey(key))
            pem = try certificate.serializeAsPEM().pemString
        } catch {
            throw .unwritable(folder, "cannot make a certificate: \(error)")
        }
        // The certificate first: the key's presence is what says the identity exists.
        try writePrivate(certificatePath, pem + "\n")
        try writePrivate(secretPath, makeSecret() + "\n")
        try writePrivate(keyPath, key.pemRepresentation + "\n")
    }

    /// Creates `path` with mode 0600 from the start (no window in which it is readable by others).
    private static func writePrivate(_ path: String, _ text: String) throws(LinkIdentityError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .unwritable(path, String(cString: strerror(errno))) }
    }

    private static func checkPrivate(_ path: String) throws(LinkIdentityError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .unreadable(path, String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path, "not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .notPrivate(path, String(mode, radix: 8)) }
    }
}

/// Why the listener's identity could not be read or made.
public enum LinkIdentityError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    case unwritable(String, String)
    case notPrivate(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "cannot read the link identity \(path): \(why)"
        case .unwritable(let path, let why): "cannot make the link identity in \(path): \(why)"
        case .notPrivate(let path, let mode):
            "\(path) is readable by others (mode \(mode)); make it 0600 (chmod 600) or remove the folder for a new identity"
        }
    }
}
