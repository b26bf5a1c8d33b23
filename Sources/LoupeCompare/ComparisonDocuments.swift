import Foundation
import LoupeTrace

/// The comparison as documents for other tools: a markdown report (a pull request's comment) and JUnit XML (one
/// test case per operation, a regression its failure).
package enum ComparisonDocuments {
    /// A heading line, the summary, and the table of operations then hosts, regressed first.
    package static func markdown(_ comparison: Comparison) -> String {
        func escape(_ text: String) -> String {
            // A cell's pipe would end the cell; backticks and angle brackets would start code or HTML.
            TerminalText.line(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "`", with: "\\`").replacingOccurrences(of: "<", with: "&lt;")
        }
        var lines = ["## loupe compare: \(comparison.hasRegression ? "regressions found" : "no regression")", "",
                     ComparisonTable.summary(comparison)]
        for (kind, groups) in [(GroupComparison.Kind.operation, comparison.operations), (.host, comparison.hosts)]
        where !groups.isEmpty {
            let header = ComparisonTable.header(kind)
            lines += ["", "| " + header.joined(separator: " | ") + " |",
                      "|" + header.indices.map { $0 < 2 || $0 == header.count - 1 ? " --- |" : " ---: |" }.joined()]
            for group in groups {
                var cells = ComparisonTable.cells(group).map(escape)
                if group.verdict == .regressed { cells[0] = "**\(cells[0])**" }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One `<testcase>` per operation (class `loupe.compare`), failed when it regressed, skipped when gone.
    package static func junit(_ comparison: Comparison) -> String {
        func xml(_ text: String) -> String { XMLText.escaped(text) }
        let groups = comparison.operations
        let failures = groups.count { $0.verdict == .regressed }
        let skipped = groups.count { $0.verdict == .gone }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"loupe compare\" tests=\"\(groups.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\">",
                     "  <testsuite name=\"operations\" tests=\"\(groups.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\">"]
        for group in groups {
            let why = xml(group.reasons.joined(separator: "; "))
            let open = "    <testcase classname=\"loupe.compare\" name=\"\(xml(group.name))\""
            switch group.verdict {
            case .regressed:
                lines += [open + ">", "      <failure message=\"\(why)\" type=\"regressed\">\(why)</failure>", "    </testcase>"]
            case .gone:
                lines += [open + ">", "      <skipped message=\"only in A\"/>", "    </testcase>"]
            case .new, .improved, .unchanged:
                lines += group.reasons.isEmpty ? [open + "/>"]
                    : [open + ">", "      <system-out>\(group.verdict.rawValue): \(why)</system-out>", "    </testcase>"]
            }
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n")
    }
}
