import Foundation
import IngestBaseline
import LoupeQuery
import LoupeTrace

// The recorder's ingest budget (issue 13, item 4): `SQLiteTraceStore.write` against GRDB inserting the same rows
// into the same schema, in interleaved rounds of one process, each on new files. Prints every round, then the
// medians the budget script reads:
//   swift build -c release --product ingest-budget
//   .build/release/ingest-budget [--rounds 5] [--count 100000] [--batch 500]
//   perf record -g .build/release/ingest-budget --only store --count 400000
//   .build/release/ingest-budget --drop-indexes all      # what the secondary indexes cost both loops
//   .build/release/ingest-budget --unindexed             # the store without its search index's work
struct Options {
    var rounds = 5
    var count = 100_000
    var batch = 500
    var only: String?
    /// Secondary indexes dropped from both files before measuring (`all` for every one).
    var dropIndexes: [String] = []
    /// The store's search index never indexes a row (its end mark raised past any sequence): ingest without it.
    var unindexed = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--unindexed" {
                unindexed = true
                continue
            }
            let value = rest.popFirst() ?? ""
            switch flag {
            case "--rounds": rounds = Int(value) ?? rounds
            case "--count": count = Int(value) ?? count
            case "--batch": batch = Int(value) ?? batch
            case "--only" where ["store", "raw"].contains(value): only = value
            case "--drop-indexes": dropIndexes = value.split(separator: ",").map(String.init)
            default:
                print("usage: ingest-budget [--rounds R] [--count N] [--batch B] [--only store|raw] [--drop-indexes all|A,B] [--unindexed]")
                exit(2)
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-ingest-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The process's CPU time in seconds (user and system, every thread).
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Exchanges per second of one loop over a new file: by the wall clock, and per second of the process's CPU time
/// (which other processes on a busy machine disturb less).
func measure(_ kind: String, round: Int) throws -> (wall: Double, cpu: Double) {
    let path = folder.appendingPathComponent("\(kind)-\(round).sqlite").path
    let clock = ContinuousClock()
    let elapsed: Duration
    let cpuStart = cpuSeconds()
    var cpuEnd = 0.0
    if kind == "raw" {
        let (pool, rows) = try IngestLoops.rawPool(at: path, dropping: options.dropIndexes)
        elapsed = try clock.measure {
            try IngestLoops.raw(into: pool, rows: rows, count: options.count, batchSize: options.batch)
        }
        cpuEnd = cpuSeconds()
        try pool.close()
    } else {
        try IngestLoops.createStore(at: path, dropping: options.dropIndexes, unindexed: options.unindexed)
        let store = try SQLiteTraceStore(path: path)
        let template = (0..<options.batch).map { _ in IngestSample.exchange() }
        let writing = try clock.measure { try IngestLoops.store(store, template: template, count: options.count) }
        guard try store.count() == options.count / options.batch * options.batch else {
            throw CocoaError(.coderInvalidValue, userInfo: [NSDebugDescriptionErrorKey: "the store lost exchanges"])
        }
        // Closing indexes the rows still waiting for the search index: the writer's work, so it is counted.
        elapsed = try writing + clock.measure { try store.close() }
        cpuEnd = cpuSeconds()
    }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let written = Double(options.count / options.batch * options.batch)
    return (written / seconds, written / (cpuEnd - cpuStart))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func rate(_ value: Double) -> String { String(format: "%.0f", value) }
func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
func spread(_ values: [Double], _ format: (Double) -> String) -> String {
    "\(format(median(values))) (\(format(values.min() ?? 0))–\(format(values.max() ?? 0)))"
}

if let only = options.only {
    let rates = try measure(only, round: 0)
    print("\(only): \(rate(rates.wall)) exchanges/s, \(rate(rates.cpu)) per CPU-second")
    exit(0)
}
var stores: [Double] = [], raws: [Double] = [], ratios: [Double] = [], cpuRatios: [Double] = []
for round in 0..<options.rounds {
    // Alternating which goes first keeps a trend in the machine's load from favouring either.
    let order = round % 2 == 0 ? ["raw", "store"] : ["store", "raw"]
    var rates: [String: (wall: Double, cpu: Double)] = [:]
    for kind in order { rates[kind] = try measure(kind, round: round) }
    let (store, raw) = (rates["store"]!, rates["raw"]!)
    stores.append(store.wall); raws.append(raw.wall)
    ratios.append(store.wall / raw.wall); cpuRatios.append(store.cpu / raw.cpu)
    print("round \(round + 1): ingest \(rate(store.wall))/s, raw \(rate(raw.wall))/s, ratio \(ratio(store.wall / raw.wall))"
        + "; per CPU-second: ingest \(rate(store.cpu)), raw \(rate(raw.cpu)), ratio \(ratio(store.cpu / raw.cpu))")
}
print("""
    \(options.rounds) rounds of \(options.count) exchanges, batches of \(options.batch); median (min–max)
    ingest exchanges/s: \(spread(stores, rate))
    raw batched GRDB insert exchanges/s: \(spread(raws, rate))
    ratio vs raw batched GRDB insert: \(spread(ratios, ratio))
    ratio vs raw batched GRDB insert, by CPU time: \(spread(cpuRatios, ratio))
    """)
