import Foundation
import LoupeTrace

/// What Loupe's own measurements reach of this module (`Benchmarks/json-callgrind.sh`, issue 27): the
/// benchmarks are a package of their own, so `package` API is out of their reach, and this small SPI is the door
/// for them. It is not a user's API: nothing here is visible without `@_spi(Benchmarks) import LoupeReplay`.
@_spi(Benchmarks)
public enum ReplayBenchmarks {
    /// Whether the diff's JSON parser reads `data` as JSON (what it builds is dropped).
    public static func diffParses(_ data: Data) -> Bool {
        JSONParser.parse(data) != nil
    }
}
