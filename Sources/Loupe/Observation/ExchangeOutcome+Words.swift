import Foundation

/// The words a person reads for an outcome (Documentation/Glossary.md): the same in the TUI, `loupe show`,
/// `loupe list` and the docs. JSON keeps ``ExchangeOutcome/rawValue`` (`shortCircuited`), the same words in
/// JSON's camel case, which scripts already read.
extension ExchangeOutcome {
    /// `short-circuited`, `http error`, …: the outcome in running text.
    package var word: String {
        switch self {
        case .success: "success"
        case .httpError: "http error"
        case .transportError: "transport error"
        case .cancelled: "cancelled"
        case .shortCircuited: "short-circuited"
        case .clientError: "client error"
        }
    }

    /// What the four-character code column shows when there is no status: `SHRT` (short-circuited), `CXL`
    /// (cancelled), `ERR` (no response).
    package var code: String {
        switch self {
        case .cancelled: "CXL"
        case .shortCircuited: "SHRT"
        case .success, .httpError, .transportError, .clientError: "ERR"
        }
    }
}
