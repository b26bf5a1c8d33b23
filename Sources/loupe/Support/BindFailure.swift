import Foundation

/// Why a server of the CLI's (the demo API, the link's listener) could not take its port, in one set of words.
enum BindFailure {
    /// True when `error` is the port being taken by another process: `port N is in use`, the common case.
    static func isAddressInUse(_ error: any Error) -> Bool {
        String(describing: error).contains(String(cString: strerror(EADDRINUSE)))
    }
}
