import FoundationEssentials
import Loupe
import LoupeOTLP
import LoupeTrace

/// `--otlp URL` (`loupe export`, `loupe demo`): the collector's traces endpoint, checked once, and the line that
/// says what reached it.
enum OTLPOption {
    /// The endpoint for `text` with `headers`; a refused URL is bad input (exit 2).
    static func endpoint(_ text: String, headers: [HeaderArgument] = []) throws -> OTLPEndpoint {
        do {
            return try OTLPEndpoint(text, headers: HeaderArgument.fields(headers))
        } catch {
            throw CommandFailure.badInput("--otlp: \(error.description)")
        }
    }

    /// One stderr line after a live export finished: `loupe: otlp to URL: 40 of 42 spans delivered, 2 not (…)`.
    static func report(_ exporter: OTLPExporter?, endpoint: OTLPEndpoint?) {
        guard let exporter, let endpoint else { return }
        let counts = exporter.counts
        var line = "loupe: otlp to \(endpoint.url.absoluteString): \(counts.deliveredSpans) of "
            + "\(Quantity.count(counts.submittedSpans, "span")) delivered"
        if counts.undeliveredSpans > 0 { line += ", \(counts.undeliveredSpans) not delivered" }
        StandardStreams.error(TerminalText.line(line) + "\n")
    }
}
