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
        return TransportError(kind(of: error), String(describing: error))
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
