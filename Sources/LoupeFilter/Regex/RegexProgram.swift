/// A compiled filter regex: a Thompson NFA as a list of instructions, run by ``RegexDFA``.
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        /// Consumes one scalar in `sets[index]`.
        case consume(Int32)
        /// Continues at both.
        case split(Int32, Int32)
        case jump(Int32)
        case assert(RegexAssertion)
        /// After `.` under `(?s)` consumed a `\r`: consumes the `\n` that follows, if one does (ICU counts `\r\n`
        /// as one character there).
        case crlfTail
        case match
    }

    /// Programs longer than this are refused: every step of a match may visit each instruction once.
    static let maxInstructions = 2_000

    private(set) var instructions: [Instruction] = []
    private(set) var sets: [RegexScalarSet] = []

    /// Compiles `node`, or throws when the program would exceed ``maxInstructions``.
    init(_ node: RegexNode) throws(RegexSyntaxError) {
        let size = Self.size(of: node)
        guard size < Self.maxInstructions else {
            throw RegexSyntaxError(
                reason: "the expression is too large (\(size >= Int.max / 4 ? "over a billion" : String(size)) steps, "
                    + "at most \(Self.maxInstructions)); use smaller {m,n} counts", offset: 0)
        }
        instructions.reserveCapacity(size + 1)
        emit(node)
        instructions.append(.match)
    }

    /// How many instructions `node` compiles to (saturating, so nested large counts cannot overflow).
    private static func size(of node: RegexNode) -> Int {
        func add(_ a: Int, _ b: Int) -> Int { min(a &+ b, Int.max / 4) }
        func times(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? Int.max / 4 : min(product, Int.max / 4)
        }
        switch node {
        case .empty: return 0
        case .set, .assertion: return 1
        case .anyIncludingNewlines: return 2
        case .concatenation(let items): return items.reduce(0) { add($0, size(of: $1)) }
        case .alternation(let branches): return branches.reduce(2 * (branches.count - 1)) { add($0, size(of: $1)) }
        case .repetition(let inner, let low, let high):
            let one = size(of: inner)
            guard let high else { return add(times(low, one), add(one, 2)) }
            return add(times(low, one), times(high - low, add(one, 1)))
        }
    }

    private mutating func emit(_ node: RegexNode) {
        switch node {
        case .empty:
            break
        case .set(let set):
            sets.append(set)
            instructions.append(.consume(Int32(sets.count - 1)))
        case .anyIncludingNewlines:
            sets.append(.dot(matchesLineTerminators: true))
            instructions.append(.consume(Int32(sets.count - 1)))
            instructions.append(.crlfTail)
        case .assertion(let assertion):
            instructions.append(.assert(assertion))
        case .concatenation(let items):
            for item in items { emit(item) }
        case .alternation(let branches):
            var exits: [Int] = []
            for branch in branches.dropLast() {
                let split = append(.split(-1, -1))
                emit(branch)
                exits.append(append(.jump(-1)))
                instructions[split] = .split(Int32(split + 1), here)
            }
            emit(branches[branches.count - 1])
            for exit in exits { instructions[exit] = .jump(here) }
        case .repetition(let inner, let low, let high):
            for _ in 0..<low { emit(inner) }
            if let high {
                var splits: [Int] = []
                for _ in low..<high {
                    splits.append(append(.split(-1, -1)))
                    emit(inner)
                }
                for split in splits { instructions[split] = .split(Int32(split + 1), here) }
            } else {
                let loop = append(.split(-1, -1))
                emit(inner)
                instructions.append(.jump(Int32(loop)))
                instructions[loop] = .split(Int32(loop + 1), here)
            }
        }
    }

    private var here: Int32 { Int32(instructions.count) }

    private mutating func append(_ instruction: Instruction) -> Int {
        instructions.append(instruction)
        return instructions.count - 1
    }
}
