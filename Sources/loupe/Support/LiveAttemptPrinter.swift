import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import LoupeFormats

/// Prints each attempt and each policy decision to stderr as it happens, so `loupe send` shows retries live.
struct LiveAttemptPrinter: ClientObserver {
    /// The request's URL, whose secrets an error or event may quote.
    var url: String
    var policy: RedactionPolicy
    /// True once the command's own output failed (`loupe send … | head`): from then on the command's one line says
    /// what happened, and the attempt and its `incomplete` event, which only follow from it, are not printed.
    var silenced: @Sendable () -> Bool

    init(redacting url: String, with policy: RedactionPolicy, silencedWhen silenced: @escaping @Sendable () -> Bool = { false }) {
        self.url = url
        self.policy = policy
        self.silenced = silenced
    }

    func attemptFinished(_ attempt: AttemptFinished) {
        let duration = Quantity.duration(attempt.timings.duration)
        if let response = attempt.response {
            write("attempt \(attempt.number): \(response.status.code) \(response.status.reasonPhrase) in \(duration)")
        } else if let error = attempt.error {
            write("attempt \(attempt.number): \(Self.describe(error)) after \(duration)")
        }
    }

    func eventRecorded(_ event: ExchangeEvent) {
        write("  \(event.kind): \(event.message)")
    }

    static func describe(_ error: any Error) -> String {
        (error as? TransportError).map { "\($0)" } ?? String(describing: error)
    }

    /// Reason phrases, errors and event messages come from the server: shown redacted as the store has them, with
    /// control characters made visible.
    private func write(_ line: String) {
        guard !silenced() else { return }
        StandardStreams.error("loupe: " + TerminalText.line(policy.redact(text: line, about: url)) + "\n")
    }
}
