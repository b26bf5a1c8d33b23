import Loupe
import LoupeTrace

/// The status column's text and role: the code coloured by class, `SHRT` for a refusal (even after a real answer),
/// `ERR` without a response, `—` in flight, `SSE` or a WebSocket's close code for a stream that opened.
enum StatusStyle {
    static func style(for status: Int) -> Style {
        switch status {
        case 200..<300: .statusSuccess
        case 300..<400: .statusRedirect
        case 400..<500: .statusClientError
        case 500..<600: .statusServerError
        default: .normal
        }
    }

    static func cell(for summary: TraceSummary) -> (text: String, style: Style) {
        // The refusal is what the app got, whatever the server said before it (that answer is in the detail).
        if summary.outcome == .shortCircuited { return (summary.outcome.code, .error) }
        // A stream that opened is listed by what it did: its last head (`204`, `101`) says nothing of that.
        if let stream = summary.openedStream {
            let failed = stream.ending == "cut" || stream.isFailedCall
            return (stream.code, failed ? .error : stream.ending == "open" ? .dim : .statusSuccess)
        }
        if let status = summary.status { return (String(status), style(for: status)) }
        if summary.duration == nil, summary.error == nil { return ("—", .dim) }
        return (summary.outcome.code, summary.outcome == .cancelled ? .dim : .error)
    }
}
