/// gRPC's `grpc-timeout` value (`200m`: at most eight digits and a unit, `H M S m u n`) in seconds.
enum GRPCTimeout {
    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, text.count >= 2, text.count <= 9, let amount = Int(text.dropLast()), amount >= 0 else {
            return nil
        }
        let scale: Double
        switch unit {
        case "H": scale = 3600
        case "M": scale = 60
        case "S": scale = 1
        case "m": scale = 1e-3
        case "u": scale = 1e-6
        case "n": scale = 1e-9
        default: return nil
        }
        return Double(amount) * scale
    }
}
