import Foundation
import LoupeTrace

/// The span the metrics screen and `loupe stats --window` cover, ending now: 1 m, 5 m, 15 m, 1 h, or all.
///
/// Windows end at the start of the current slot plus one slot (10 s slots up to 15 m, 1 m slots for 1 h): a 1 m
/// window at 12:00:05 covers 11:59:10 to 12:00:10, the current partial slot and the five before it. The slot
/// is the price of not keeping every duration; both readers use it, so they agree.
public enum MetricsWindow: String, Sendable, Hashable, CaseIterable, Codable {
    case oneMinute = "1m"
    case fiveMinutes = "5m"
    case fifteenMinutes = "15m"
    case oneHour = "1h"
    case all

    /// Its length in seconds (`nil` for all).
    public var seconds: Int? {
        switch self {
        case .oneMinute: 60
        case .fiveMinutes: 300
        case .fifteenMinutes: 900
        case .oneHour: 3_600
        case .all: nil
        }
    }

    /// The width of one slot of the window's ring, in seconds.
    var slotSeconds: Int { self == .oneHour || self == .all ? MetricsSlots.coarse : MetricsSlots.fine }

    /// The next window, for `w`.
    public var next: MetricsWindow {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}
