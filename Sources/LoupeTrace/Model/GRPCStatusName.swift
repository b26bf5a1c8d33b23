/// gRPC's status codes by name (`UNAVAILABLE` is 14), as grpc's own documentation spells them: what a gRPC row's
/// status column shows and what the filter term `~gs` takes.
public enum GRPCStatusName {
    /// The names in code order: index `n` is code `n`.
    public static let names = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    ]

    /// The name of `code`, or its number when gRPC defines no such code.
    public static func name(_ code: Int) -> String {
        names.indices.contains(code) ? names[code] : String(code)
    }

    /// The code a name (any case, `-` for `_`) or a number from 0 to 16 stands for; nil for anything else.
    public static func code(_ text: String) -> Int? {
        if let number = Int(text) { return names.indices.contains(number) ? number : nil }
        let wanted = String(text.uppercased().map { $0 == "-" ? "_" : $0 })
        return names.firstIndex(of: wanted)
    }
}
