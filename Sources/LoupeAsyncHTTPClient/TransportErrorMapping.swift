import AsyncHTTPClient
import Foundation
import Loupe
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Translates AsyncHTTPClient and SwiftNIO errors into Loupe's transport-neutral ``TransportError``.
enum TransportErrorMapping {
    static func map(_ error: any Error) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? TransportError { return error }
        return TransportError(kind(of: error), message(for: error))
    }

    /// The failure in a person's words: a socket error by its errno (`connection refused`), not NIO's description
    /// of the system call (`connection reset (error set): Connection refused) (errno: 111)`).
    static func message(for error: any Error) -> String {
        switch error {
        case let error as IOError:
            return errnoText(error.errnoCode)
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host): \(dns)" }
            if let first = error.connectionErrors.first { return message(for: first.error) }
            return "cannot connect to \(error.host):\(error.port)"
        default:
            return String(describing: error)
        }
    }

    /// `strerror`'s text, lowercased as the CLI's messages are.
    static func errnoText(_ code: CInt) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        let words = String(cString: text)
        guard let first = words.first, words.dropFirst().first?.isLowercase == true else { return words }
        return first.lowercased() + words.dropFirst()
    }

    static func kind(of error: any Error) -> TransportError.Kind {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout: return .connectFailed
            case .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout: return .timedOut
            case .remoteConnectionClosed: return .connectionReset
            case .cancelled: return .cancelled
            default: return .other
            }
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return .tls
        case is NIOConnectionError:
            return .connectFailed
        case let error as HTTPParserError where error == .invalidEOFState:
            // The connection closed before the message was complete (a body shorter than its Content-Length).
            return .connectionReset
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: return .connectFailed
            case ECONNRESET, EPIPE, ECONNABORTED: return .connectionReset
            case ETIMEDOUT: return .timedOut
            default: return .other
            }
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .connectFailed
            case .ioOnClosedChannel, .eof, .outputClosed, .inputClosed, .alreadyClosed: return .connectionReset
            default: return .other
            }
        default:
            if String(describing: type(of: error)).contains("Resolution") { return .connectFailed }
            return .other
        }
    }
}
