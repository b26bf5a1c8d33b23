import Foundation
import Logging
import Loupe
import LoupeTrace
import Synchronization
import Testing
@testable import LoupeRules

/// Held requests as the viewer sees them (redacted) and the viewer's edits made whole again by the app (issue 43.5),
/// and the rules' log lines with escapes made visible (issue 44.15).
@Suite struct HeldRedactionTests {
    static let held = HeldRequest(
        exchangeID: UUID(), rule: "hold", phase: .request, operation: "createOrder", method: "POST",
        url: "http://api.test/orders?api_key=k-123456&n=1",
        headers: [TraceHeader(name: "Authorization", value: "Bearer demo-token-abcdef"),
                  TraceHeader(name: "Content-Type", value: "application/json")],
        body: Data(#"{"password":"hunter22","qty":1}"#.utf8), since: Date())
    static let redaction = HeldRedaction(RedactionPolicy())

    @Test func whatTheViewerSeesHoldsNoSecret() {
        let shown = Self.redaction.redacted(Self.held)
        #expect(shown.headers[0].value == RedactionPolicy.marker)
        #expect(shown.url == "http://api.test/orders?api_key=\(RedactionPolicy.urlMarker)&n=1")
        #expect(String(decoding: shown.body!, as: UTF8.self) == #"{"password":"[REDACTED]","qty":1}"#)
    }

    @Test func fieldsLeftRedactedGetTheAppsValuesBack() throws {
        let shown = Self.redaction.redacted(Self.held)
        let edit = HoldEdit(method: "POST", url: shown.url.replacingOccurrences(of: "n=1", with: "n=2"), headers: shown.headers,
                            body: Data(#"{"password":"[REDACTED]","qty":42}"#.utf8))
        let restored = try Self.redaction.restore(edit, original: Self.held).get()
        #expect(restored.headers?[0].value == "Bearer demo-token-abcdef")
        #expect(restored.url == "http://api.test/orders?api_key=k-123456&n=2")
        #expect(restored.body == Data(#"{"password":"hunter22","qty":42}"#.utf8))
        // A value the viewer typed over the marker is the viewer's.
        var typed = edit
        typed.headers = [TraceHeader(name: "Authorization", value: "Bearer mine")]
        #expect(try Self.redaction.restore(typed, original: Self.held).get().headers?[0].value == "Bearer mine")
    }

    @Test func aMarkerWhereTheAppHasNoValueIsRefused() {
        let shown = Self.redaction.redacted(Self.held)
        func refused(_ edit: HoldEdit) -> Bool {
            if case .failure = Self.redaction.restore(edit, original: Self.held) { true } else { false }
        }
        #expect(refused(HoldEdit(headers: shown.headers + [TraceHeader(name: "Cookie", value: RedactionPolicy.marker)])))
        #expect(refused(HoldEdit(url: "http://api.test/orders?token=\(RedactionPolicy.urlMarker)")))
        #expect(refused(HoldEdit(body: Data(#"{"password":"[REDACTED]","note":"[REDACTED]","qty":1}"#.utf8))))
        // The marker moved to another field is not the value it hid.
        #expect(refused(HoldEdit(body: Data(#"{"pin":"[REDACTED]","qty":1}"#.utf8))))
    }

    final class Lines: Sendable { let all = Mutex<[String]>([]) }
    struct Capture: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            lines.all.withLock { $0.append("\(message) \(metadata ?? [:])") }
        }
    }

    /// Issue 44.15: a rule named with an escape retitled the terminal the app logs to.
    @Test func ruleNamesInLogLinesShowEscapesMadeVisible() throws {
        let lines = Lines()
        let book = RuleBook(logger: Logger(label: "t") { _ in Capture(lines: lines) })
        let name = "x\u{1B}]0;pwned\u{07}\u{1B}[2J"
        book.put(try Rule(name: name, match: "~op a", action: .fault(.status(503))), origin: .viewer("v"))
        book.remove(named: name, by: .viewer("v"))
        book.replaceAll(from: .file("/tmp/r"), with: [try Rule(name: name, match: "~op a", action: .fault(.status(503)))])
        let logged = lines.all.withLock { $0 }
        #expect(logged.count == 3)
        #expect(!logged.contains { $0.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 } })
        #expect(logged.allSatisfy { $0.contains("␛") })
    }
}
