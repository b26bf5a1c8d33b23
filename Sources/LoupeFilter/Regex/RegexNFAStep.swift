/// What the scalar before a position was: all that `^`, `$` and `\b` need to know about the text behind.
struct RegexContext: Hashable {
    static let atStart: UInt8 = 1, afterLineTerminator: UInt8 = 2, afterCarriageReturn: UInt8 = 4, afterWord: UInt8 = 8
    static let start = RegexContext(bits: atStart)

    var bits: UInt8

    init(bits: UInt8) {
        self.bits = bits
    }

    func has(_ bit: UInt8) -> Bool { bits & bit != 0 }

    init(after scalar: UInt32?, previous: RegexContext) {
        guard let scalar, let character = Unicode.Scalar(scalar) else {
            self = previous
            return
        }
        var bits: UInt8 = 0
        if RegexUnicode.isLineTerminator(scalar) { bits |= Self.afterLineTerminator }
        if scalar == 0x0D { bits |= Self.afterCarriageReturn }
        // `\b` looks back past combining marks and format characters to the last scalar that is neither.
        let word = RegexUnicode.isTransparentToWordBoundary(character)
            ? previous.has(Self.afterWord) : RegexUnicode.isWord(character)
        if word { bits |= Self.afterWord }
        self.bits = bits
    }
}

/// One step of the NFA: from the instructions threads wait at, across one scalar, to where they wait next.
///
/// A struct with the scratch arrays it reuses (so a step allocates nothing once warm), driven by ``RegexDFA``.
struct RegexNFAStep {
    private let program: RegexProgram
    private let instructions: [RegexProgram.Instruction]
    /// The ASCII members of each `consume` instruction's set, by instruction, so the common case is a bit test.
    private var asciiLow: [UInt64]
    private var asciiHigh: [UInt64]
    private var visited: [UInt32]
    private var queued: [UInt32]
    private var generation: UInt32 = 0
    private var stack: [Int32] = []
    /// Where threads wait after the last ``follow(_:_:next:)``.
    var nextWaiting: [Int32] = []

    init(_ program: RegexProgram) {
        self.program = program
        instructions = program.instructions
        visited = Array(repeating: 0, count: instructions.count)
        queued = Array(repeating: 0, count: instructions.count)
        asciiLow = Array(repeating: 0, count: instructions.count)
        asciiHigh = Array(repeating: 0, count: instructions.count)
        for (pc, instruction) in instructions.enumerated() {
            guard case .consume(let set) = instruction else { continue }
            let masks = program.sets[Int(set)].asciiMasks
            asciiLow[pc] = masks.low
            asciiHigh[pc] = masks.high
        }
    }

    /// Follows every thread in `waiting` through splits, jumps and assertions (which look at the previous
    /// scalar, in `context`, and at `next`, nil at the end of the text), then across `next`, into `nextWaiting`
    /// (unsorted). Returns true when a thread reaches `match` on the way: the text matches.
    mutating func follow(_ waiting: [Int32], _ context: RegexContext, next: UInt32?) -> Bool {
        generation &+= 1
        if generation == 0 {
            for i in visited.indices { visited[i] = 0; queued[i] = 0 }
            generation = 1
        }
        nextWaiting.removeAll(keepingCapacity: true)
        stack.removeAll(keepingCapacity: true)
        stack.append(contentsOf: waiting.reversed())
        let ascii = next.map { $0 < 128 } ?? false
        while let pc = stack.popLast() {
            let i = Int(pc)
            guard visited[i] != generation else { continue }
            visited[i] = generation
            switch instructions[i] {
            case .match:
                return true
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if Self.holds(assertion, context, next) { stack.append(pc + 1) }
            case .consume(let set):
                guard let next else { break }
                let found = ascii
                    ? (next < 64 ? asciiLow[i] & (1 << UInt64(next)) != 0 : asciiHigh[i] & (1 << UInt64(next - 64)) != 0)
                    : program.sets[Int(set)].contains(next)
                if found { wait(at: pc + 1) }
            case .crlfTail:
                if context.has(RegexContext.afterCarriageReturn), next == 0x0A { wait(at: pc + 1) } else { stack.append(pc + 1) }
            }
        }
        // A match may start at every position.
        wait(at: 0)
        return false
    }

    private mutating func wait(at pc: Int32) {
        let i = Int(pc)
        guard queued[i] != generation else { return }
        queued[i] = generation
        nextWaiting.append(pc)
    }

    /// ICU's meaning of each assertion (multi-line `^` and `$`; `\b` as in `RegexMatcher::isWordBoundary`).
    static func holds(_ assertion: RegexAssertion, _ context: RegexContext, _ next: UInt32?) -> Bool {
        switch assertion {
        case .textStart:
            return context.has(RegexContext.atStart)
        case .textEnd:
            return next == nil
        case .lineStart:
            if context.has(RegexContext.atStart) { return true }
            guard let next, context.has(RegexContext.afterLineTerminator) else { return false }
            return !(context.has(RegexContext.afterCarriageReturn) && next == 0x0A)
        case .lineEnd:
            guard let next else { return true }
            return RegexUnicode.isLineTerminator(next) && !(next == 0x0A && context.has(RegexContext.afterCarriageReturn))
        case .wordBoundary, .notWordBoundary:
            return isWordBoundary(context, next) == (assertion == .wordBoundary)
        }
    }

    static func isWordBoundary(_ context: RegexContext, _ next: UInt32?) -> Bool {
        var nextIsWord = false
        if let next, let scalar = Unicode.Scalar(next) {
            if RegexUnicode.isTransparentToWordBoundary(scalar) { return false }
            nextIsWord = RegexUnicode.isWord(scalar)
        }
        return nextIsWord != context.has(RegexContext.afterWord)
    }
}
