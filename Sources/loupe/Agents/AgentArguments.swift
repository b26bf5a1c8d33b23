import LoupeTrace

/// A tool call's arguments, read and checked once: strings are strings, numbers are whole and within their
/// ``AgentLimits`` range (through ``NumberArgument``, the CLI's one reader of numbers), and an argument the tool
/// does not take is refused by name, so a typo is not silently ignored.
struct AgentArguments {
    /// Why the arguments were refused, in a sentence the agent can correct its call from.
    struct Refusal: Error, Equatable { var message: String }

    private let values: JSONObject

    init(_ values: JSONObject?, allowed: Set<String>) throws(Refusal) {
        self.values = values ?? JSONObject()
        if let unknown = self.values.keys.sorted().first(where: { !allowed.contains($0) }) {
            let names = allowed.sorted().joined(separator: ", ")
            throw Refusal(message: "unknown argument \"\(unknown)\"; this tool takes \(names.isEmpty ? "none" : names)")
        }
    }

    /// The string argument `name`, or nil when absent or null.
    func string(_ name: String, maxLength: Int = 10_000) throws(Refusal) -> String? {
        guard let value = values[name], value != .null else { return nil }
        guard case .string(let text) = value else { throw Refusal(message: "\(name): expected a string, got \(Self.kind(value))") }
        guard text.utf8.count <= maxLength else {
            throw Refusal(message: "\(name): at most \(maxLength) bytes, got \(text.utf8.count)")
        }
        return text
    }

    /// The string argument `name`, which must be present.
    func requiredString(_ name: String, maxLength: Int = 10_000) throws(Refusal) -> String {
        guard let text = try string(name, maxLength: maxLength), !text.isEmpty else {
            throw Refusal(message: "\(name) is required")
        }
        return text
    }

    /// The whole-number argument `name` within `range`, or `fallback` when absent.
    func count(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(Refusal) -> Int {
        guard let value = values[name], value != .null else { return fallback }
        var text: String
        switch value {
        case .number(let number):
            text = number.text
            // JSON has one number type: 50.0 is 50, 50.5 is refused by the whole-number reader below.
            if text.contains(where: { ".eE".contains($0) }), let double = Double(text), double.isFinite,
               double == double.rounded(), abs(double) < 1e15 {
                text = String(Int64(double))
            }
        default: throw Refusal(message: "\(name): expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(Self.kind(value))")
        }
        do {
            return try NumberArgument.whole(text, in: range, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        } catch {
            throw Refusal(message: "\(name): \(error)")
        }
    }

    /// The argument `name` read by `parse`, one of the CLI's option readers (so `latency` takes 10, "10" or "10%",
    /// within the option's range), or nil when absent.
    func value<T>(_ name: String, _ parse: (String) throws(ArgumentValueError) -> T) throws(Refusal) -> T? {
        guard let value = values[name], value != .null else { return nil }
        let text: String
        switch value {
        case .number(let number): text = number.text
        case .string(let string) where string.utf8.count <= 64: text = string
        default: throw Refusal(message: "\(name): expected a number or a short string, got \(Self.kind(value))")
        }
        do {
            return try parse(text)
        } catch {
            throw Refusal(message: "\(name): \(error)")
        }
    }

    /// The argument `name`, one of `choices`, or `fallback` when absent.
    func choice(_ name: String, _ choices: [String], default fallback: String) throws(Refusal) -> String {
        guard let text = try string(name, maxLength: 64) else { return fallback }
        guard choices.contains(text) else {
            throw Refusal(message: "\(name): expected one of \(choices.joined(separator: ", ")), got \"\(text)\"")
        }
        return text
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
