import ArgumentParser
import LoupeTrace

/// `--redact-header`, `--redact-query`, `--redact-field`: names redacted on top of the default lists, for every
/// command that records or rewrites a recording (`send`, `import`, `redact`).
struct RedactionFlags: ParsableArguments {
    @Option(name: .customLong("redact-header"),
            help: ArgumentHelp("Also redact this header (repeatable; case, '-' and '_' ignored).", valueName: "NAME"))
    var headers: [String] = []

    @Option(name: .customLong("redact-query"),
            help: ArgumentHelp("Also redact this query item (repeatable).", valueName: "NAME"))
    var queryItems: [String] = []

    @Option(name: .customLong("redact-field"),
            help: ArgumentHelp("Also redact this JSON or form field, at any depth (repeatable).", valueName: "NAME"))
    var fields: [String] = []

    func validate() throws {
        for (flag, names) in [("--redact-header", headers), ("--redact-query", queryItems), ("--redact-field", fields)]
        where names.contains(where: { RedactionNames.normalized($0).isEmpty }) {
            throw ValidationError("\(flag) needs a name")
        }
    }

    /// The default policy plus the names given.
    var policy: RedactionPolicy {
        RedactionPolicy().adding(headers: headers, queryItems: queryItems, fields: fields)
    }
}
