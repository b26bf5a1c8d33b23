/// The file formats `x` exports to.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// One `curl` command per exchange, runnable in any POSIX shell (``CurlExporter``).
    case curl
    /// A HAR 1.2 file that browsers' tools read and `loupe import` reads back whole.
    case har
    /// HTTP/1.1 messages: request, blank line, response; `----` between exchanges.
    case raw

    /// How messages name the format.
    package var title: String {
        switch self {
        case .curl: "curl"
        case .har: "HAR"
        case .raw: "raw HTTP"
        }
    }

    /// The usual file extension, for suggesting a file name.
    package var fileExtension: String {
        switch self {
        case .curl: "sh"
        case .har: "har"
        case .raw: "http"
        }
    }
}
