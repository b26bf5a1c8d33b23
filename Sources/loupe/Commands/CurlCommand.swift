import ArgumentParser
import Foundation
import LoupeTrace
import LoupeFormats

/// `loupe curl [STORE] ID`: one exchange's request as a `curl` command, quoted for any POSIX shell.
///
/// Two optional positionals resolved by count, as `loupe show` does: `curl ID` reads the default store.
struct CurlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curl", abstract: "Print an exchange's request as a curl command.",
        discussion: """
            ID is a whole id, a unique prefix of one (the first column of `loupe list`), or a sequence number (42 or #42).
            Redacted headers are left out and named in comments above the command.
            """)

    @Argument(help: ArgumentHelp("The trace store, when two arguments are given (default: $LOUPE_STORE or the XDG state store).", valueName: "STORE"))
    var first: String?

    @Argument(help: ArgumentHelp("The exchange.", valueName: "ID"))
    var second: String?

    func validate() throws {
        guard first != nil else { throw ValidationError("missing ID (an id, an id prefix or a sequence number)") }
    }

    func run() async throws {
        let (storeArgument, reference) = second.map { (first, $0) } ?? (nil, first ?? "")
        let (store, path) = try StoreAccess.openForReading(storeArgument)
        print(CurlExporter.command(for: try StoreAccess.exchange(reference, in: store, path: path)))
    }
}
