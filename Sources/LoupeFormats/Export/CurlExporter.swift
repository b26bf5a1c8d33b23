import Foundation
import LoupeTrace

/// A recorded exchange as a `curl` command line that any POSIX shell (sh, dash, bash, zsh) runs as recorded.
///
/// Every argument is single-quoted (a `'` inside becomes `'\''`), so nothing in a URL, header or body is
/// expanded by the shell. Text bodies go in `--data-binary '…'`; bodies that are not UTF-8 or contain NUL bytes
/// (which no argument can hold) are piped in with `printf '\ooo…' | curl … --data-binary @-`, octal escapes being
/// POSIX where `$'…'` is not. Redacted headers are left out with a `# Name was redacted` line above the command,
/// so are the recorded `traceparent` and `tracestate` (a pasted command is a new request, not the recorded one's
/// trace and span), `Content-Length` is left to curl, and `--compressed` is added when the request sent `Accept-Encoding`.
///
/// ```swift
/// print(CurlExporter.command(for: exchange))
/// // # Authorization was redacted
/// // curl 'https://api.example.com/v1/users' \
/// //   -H 'Accept: application/json'
/// ```
public enum CurlExporter {
    /// What the command runs: `curl` with ``arguments``, fed ``standardInput`` when set.
    public struct Invocation: Sendable, Hashable {
        /// Lines shown above the command (without the `# `).
        public var comments: [String]
        /// The arguments after `curl`, grouped as they are laid out (one group per line).
        public var argumentGroups: [[String]]
        /// The bytes piped to curl's standard input, for bodies no argument can hold.
        public var standardInput: Data?

        /// The arguments after `curl`, in order.
        public var arguments: [String] { argumentGroups.flatMap { $0 } }
    }

    /// The W3C trace context headers (lowercased), which a command leaves out; the replays renew them instead
    /// (`TraceReplayer`).
    static let recordedTraceContext: Set<String> = ["traceparent", "tracestate"]

    /// The shell command for `exchange`.
    public static func command(for exchange: TraceExchange) -> String {
        render(invocation(for: exchange))
    }

    /// What ``command(for:)`` runs, before shell quoting.
    public static func invocation(for exchange: TraceExchange) -> Invocation {
        var comments: [String] = []
        // A URL that does not start like one could be read as an option.
        let url = exchange.url
        var groups: [[String]] = [url.first?.isLetter == true ? [url] : ["--url", url]]
        let body = exchange.requestBody
        let method = exchange.method
        switch (method, body != nil) {
        case ("GET", false), ("POST", true): break
        case ("HEAD", false): groups.append(["--head"])
        default: groups.append(["-X", method])
        }
        if url.contains(where: { "[]{}".contains($0) }) { groups.append(["--globoff"]) }

        var compressed = false
        for header in exchange.requestHeaders {
            let name = header.name.lowercased()
            if header.value == RedactionPolicy.marker {
                comments.append("\(header.name) was redacted")
                continue
            }
            if name == "content-length" { continue }
            if Self.recordedTraceContext.contains(name) {
                // The recorded trace context is the original request's: a pasted command (run once or a hundred
                // times) is a new request and must not claim the old trace and span.
                comments.append("\(header.name) left out: it names the recorded request's trace and span")
                continue
            }
            if name == "accept-encoding" { compressed = true }
            // `-H 'Name:'` would remove the header; `Name;` sends it empty.
            groups.append(["-H", header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"])
        }
        if compressed { groups.append(["--compressed"]) }

        var standardInput: Data?
        if let body {
            if body.isTruncated {
                comments.append("The request body was truncated when recorded: \(body.data.count) of \(body.size) bytes follow")
            }
            if let text = String(validating: body.data, as: UTF8.self), !text.utf8.contains(0) {
                // `--data-binary @x` would read the file x; `--data-raw` sends the text as it is.
                groups.append([text.hasPrefix("@") ? "--data-raw" : "--data-binary", text])
            } else {
                groups.append(["--data-binary", "@-"])
                standardInput = body.data
            }
        }
        return Invocation(comments: comments, argumentGroups: groups, standardInput: standardInput)
    }

    /// The invocation as shell text: comments, then `curl` and the URL, then one argument group per continued
    /// line. Options and plain words (`-X PUT`, `@-`) stay bare; URLs, headers and bodies are always quoted.
    public static func render(_ invocation: Invocation) -> String {
        var lines = invocation.comments.map { "# " + singleLine($0) }
        let groups = invocation.argumentGroups.map { group in
            group.enumerated().map { index, argument in
                let isOption = index == 0 && argument.hasPrefix("-") && group.count <= 2
                let isWord = index == 1 && (group[0] == "-X" || argument == "@-")
                return (isOption || isWord) ? word(argument) : quoted(argument)
            }.joined(separator: " ")
        }
        var command = invocation.standardInput.map { "printf " + quoted(printfFormat($0)) + " | curl" } ?? "curl"
        command += groups.enumerated().map { index, group in (index == 0 ? " " : " \\\n  ") + group }.joined()
        lines.append(command)
        return lines.joined(separator: "\n")
    }

    /// `text` bare when the shell reads it as itself, else quoted.
    static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_@%+=:,./".unicodeScalars.contains($0))
        }
        return plain ? text : quoted(text)
    }

    /// `text` in single quotes, each `'` written as `'\''` (close, escaped quote, reopen), and control characters
    /// spliced in through `printf` so the command never carries a raw ESC to the terminal it is printed on.
    public static func quoted(_ text: String) -> String {
        TerminalText.shellQuoted(text)
    }

    /// A `printf` format that prints exactly `data`: printable ASCII as is, everything else as `\ooo`.
    static func printfFormat(_ data: Data) -> String {
        var format = ""
        format.reserveCapacity(data.count * 2)
        for byte in data {
            switch byte {
            case UInt8(ascii: "\\"): format += "\\\\"
            case UInt8(ascii: "%"): format += "%%"
            case UInt8(ascii: "'"): format += "\\047"
            case 0x20...0x7E: format.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let octal = String(byte, radix: 8)
                format += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return format
    }

    /// Comment text on one line: a newline in a header name must not end the comment and start a command.
    private static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }
}
