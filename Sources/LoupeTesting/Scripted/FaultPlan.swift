import Foundation
import Loupe

/// Chooses the fault, if any, for each call of a ``FaultInjectingTransport``.
public struct FaultPlan: Sendable {
    /// Returns the fault for call number `call` (1 for the first), or `nil` to let it through.
    public let fault: @Sendable (_ call: Int) -> FaultInjectingTransport.Fault?

    /// A plan from a closure of the call number.
    public init(_ fault: @escaping @Sendable (_ call: Int) -> FaultInjectingTransport.Fault?) {
        self.fault = fault
    }

    /// Never injects anything.
    public static let none = FaultPlan { _ in nil }

    /// Injects the given faults at the given call numbers (1 for the first call).
    public static func calls(_ faults: [Int: FaultInjectingTransport.Fault]) -> FaultPlan {
        FaultPlan { faults[$0] }
    }

    /// Injects `fault` into every `n`th call.
    public static func every(_ n: Int, _ fault: FaultInjectingTransport.Fault) -> FaultPlan {
        precondition(n > 0, "every n-th call needs n > 0")
        return FaultPlan { $0 % n == 0 ? fault : nil }
    }

    /// Injects faults at the given rates, drawing one number in `0..<1` per call from `random` (seed it in tests).
    public static func random(
        resetRate: Double = 0, timeoutRate: Double = 0, latencyRate: Double = 0, latency: Duration = .milliseconds(100),
        random: @escaping @Sendable () -> Double
    ) -> FaultPlan {
        FaultPlan { _ in
            let draw = random()
            if draw < resetRate { return .connectionReset }
            if draw < resetRate + timeoutRate { return .timeout }
            if draw < resetRate + timeoutRate + latencyRate { return .latency(latency) }
            return nil
        }
    }
}
