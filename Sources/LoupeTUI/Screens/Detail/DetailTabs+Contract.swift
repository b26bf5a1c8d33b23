import Foundation
import Loupe
import LoupeContract
import LoupeTrace

extension DetailTabs {
    /// The Contract tab (`loupe tui --openapi`): the operation the exchange matched, each finding (where in the
    /// body, what the contract says, what came), then the body the findings point into — the response's, or the
    /// request's when only the request drifts.
    func contractLines(_ view: BodyView) -> [StyledLine] {
        guard let verdict else { return [StyledLine("Not checked: no OpenAPI contract.", style: .dim)] }
        var lines: [StyledLine] = []
        guard let operation = verdict.operation else {
            lines.append(StyledLine([.init("Contract  ", .heading), .init("matches no operation", .error)]))
            lines.append(StyledLine(verdict.unmatchedReason ?? "", style: .dim))
            return Self.safe(lines)
        }
        lines.append(StyledLine([.init("Contract  ", .heading), .init("operation ", .dim), .init(operation)]))
        if verdict.findings.isEmpty {
            lines.append(StyledLine("no drift: the exchange is what the contract describes", style: .dim))
        } else {
            lines.append(StyledLine(Quantity.count(verdict.findings.count, "finding"), style: .error))
            for finding in verdict.findings {
                lines.append(StyledLine([.init(finding.kind, .dim), .init("  " + finding.message, .error)]))
            }
        }
        lines = Self.safe(lines)
        let requestOnly = !verdict.findings.isEmpty
            && verdict.findings.allSatisfy { $0.isCovered(by: "request-body") || $0.isCovered(by: "parameter") }
        let (title, body, headers) = requestOnly
            ? ("Request body", exchange.requestBody, exchange.requestHeaders)
            : ("Response body", exchange.responseBody, exchange.responseHeaders)
        lines += [.empty, Self.heading(title, note: BodyFormatter.sizeNote(body))]
        BodyFormatter.append(body, headers: headers, view: view, to: &lines)
        return lines
    }
}
