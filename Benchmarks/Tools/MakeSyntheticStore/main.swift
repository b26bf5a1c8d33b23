import Foundation
import SyntheticStores

// `make-synthetic-store COUNT`: prints the path of a cached synthetic store of COUNT exchanges, making it first if
// it is missing (see `SyntheticStoreCache`). Used by `tui-budget.sh`.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let count = Int(arguments.first!), count > 0 else {
    FileHandle.standardError.write(Data("usage: make-synthetic-store COUNT\n".utf8))
    exit(2)
}
do {
    print(try SyntheticStoreCache.ensure(count: count))
} catch {
    FileHandle.standardError.write(Data("make-synthetic-store: \(error)\n".utf8))
    exit(1)
}
