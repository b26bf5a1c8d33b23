import Foundation
import LoupeProtobuf
import LoupeTrace
import LoupeReplay

/// A replay compared with its original, as styled lines: each difference a heading (what `loupe replay --diff`
/// prints), then for a text body its lines side by side (at 120 columns or wider) or as unified hunks.
struct DiffDocument {
    /// The lines, and which of them start a difference (for `n` / `N`).
    var lines: [StyledLine] = []
    var differenceStarts: [Int] = []

    /// Side by side from this width.
    static let sideBySideWidth = 120

    /// `messageTypes` reads gRPC messages field by name; without it they are compared by field number.
    init(original: TraceExchange, replay: TraceExchange, width: Int, messageTypes: ProtobufDescriptorSet? = nil) {
        let diff = ExchangeDiff(original: original, replay: replay, options: DiffOptions(messageTypes: messageTypes))
        let sideBySide = width >= Self.sideBySideWidth
        let summary = diff.isSame ? "the replay answered as the original did"
            : "\(diff.differences.count) difference\(diff.differences.count == 1 ? "" : "s")"
        lines.append(StyledLine([.init("↻ ", .replay), .init("replay #\(replay.sequence ?? 0) vs original #\(original.sequence ?? 0): ", .heading),
                                 .init(summary, diff.isSame ? .statusSuccess : .statusServerError)]))
        lines.append(StyledLine("   \(TerminalText.line(original.method + " " + original.url))", style: .dim))
        // An edited replay (`e`) sent another request: say what it sent and how it differs, before the answers
        // (issue 43.11). Per-request ids and trace context differ on every replay and are left out.
        let requestChanges = RequestChanges.summary(from: original, to: replay, ignoring: HeaderDiff.volatileNames)
        if !requestChanges.isEmpty {
            if original.method != replay.method || original.url != replay.url {
                lines.append(StyledLine("   sent " + TerminalText.line(replay.method + " " + replay.url), style: .label))
            }
            lines.append(StyledLine("   request edited: " + TerminalText.line(requestChanges.joined(separator: ", ")), style: .label))
        }
        for note in diff.notes { lines.append(StyledLine("   note: " + TerminalText.line(note), style: .dim)) }
        lines.append(.empty)
        for difference in diff.differences {
            differenceStarts.append(lines.count)
            append(difference, sideBySide: sideBySide, width: width)
        }
        if !diff.noise.isEmpty || !diff.ignored.isEmpty {
            lines.append(.empty)
            lines.append(StyledLine("Left out (volatile or ignored), not counted:", style: .dim))
            for difference in diff.noise + diff.ignored {
                lines.append(StyledLine("  " + TerminalText.line(difference.description), style: .dim))
            }
        }
    }

    private mutating func append(_ difference: Difference, sideBySide: Bool, width: Int) {
        lines.append(StyledLine(TerminalText.line(difference.description), style: .label))
        guard case .lines(let lineDiff) = difference.change else { return }
        if sideBySide {
            let column = (width - 3) / 2
            for step in lineDiff.steps {
                let (left, right, style): (String, String, Style) = switch step {
                case .same(let old, let new): (lineDiff.oldLines[old], lineDiff.newLines[new], .normal)
                case .removed(let old): (lineDiff.oldLines[old], "", .statusServerError)
                case .inserted(let new): ("", lineDiff.newLines[new], .statusSuccess)
                }
                let shownLeft = DisplayWidth.pad(DisplayWidth.truncate(TerminalText.line(left), to: column), to: column)
                let shownRight = DisplayWidth.truncate(TerminalText.line(right), to: column)
                lines.append(StyledLine([.init(shownLeft, style == .statusSuccess ? .dim : style), .init(" │ ", .dim),
                                         .init(shownRight, style == .statusServerError ? .dim : style)]))
            }
        } else {
            for line in difference.detailLines {
                let style: Style = line.hasPrefix("+") ? .statusSuccess : line.hasPrefix("-") ? .statusServerError
                    : line.hasPrefix("@@") ? .dim : .normal
                lines.append(StyledLine("  " + TerminalText.line(line), style: style))
            }
        }
    }
}
