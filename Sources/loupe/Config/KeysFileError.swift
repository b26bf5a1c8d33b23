/// What is wrong with a `keys.toml`, and where.
struct KeysFileError: Error, Equatable {
    /// The 1-based line, when it is known.
    var line: Int?
    /// What is wrong, without the file name.
    var reason: String

    init(line: Int? = nil, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `FILE:LINE: reason`, or `FILE: reason` when the line is unknown.
    func message(file: String) -> String {
        line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
    }
}
