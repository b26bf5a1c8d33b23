/// What is wrong with a configuration file (`keys.toml`, a rules file), and where.
public struct ConfigFileError: Error, Equatable, Sendable {
    /// The 1-based line, when it is known.
    public var line: Int?
    /// What is wrong, without the file name.
    public var reason: String

    public init(line: Int? = nil, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `FILE:LINE: reason`, or `FILE: reason` when the line is unknown.
    public func message(file: String) -> String {
        line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
    }
}
