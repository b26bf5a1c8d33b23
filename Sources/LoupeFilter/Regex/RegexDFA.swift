/// Runs a ``RegexProgram`` over a text in one pass, in time linear in the text: a lazily built DFA.
///
/// Each DFA state is the set of NFA instructions that threads are waiting at (before the closure over splits and
/// assertions) plus what the previous scalar was, which decides `^`, `$` and `\b`. The next state for a scalar is
/// worked out once, by following the NFA (at most one visit per instruction), and cached: the 128 ASCII scalars
/// in a table, others in a dictionary. The cache is bounded; when full it is dropped and rebuilt as the text goes
/// on. When a text keeps making new states (patterns like `(a|b)*a(a|b){20}` have exponentially many), the rest
/// of it is run as a plain NFA simulation, without caching: one step over the program per scalar. So the worst
/// case is `O(text × program)`, never exponential.
///
/// `@unchecked Sendable` only so that it can be parked in ``TextPattern``'s `Mutex` between matches: it is
/// mutable and not thread-safe, but an instance is never shared. It is either idle inside that mutex or owned
/// by exactly one `matches` call, which took it out under the lock and puts it back under the lock when done.
final class RegexDFA: @unchecked Sendable {
    /// A cache bigger than this (states, or instructions summed over states) is dropped and rebuilt.
    static let maxStates = 1024
    static let maxStoredInstructions = 1 << 18

    private static let unknown: Int32 = -2
    private static let matched: Int32 = -1

    private struct Key: Hashable {
        var waiting: [Int32]
        var context: RegexContext
    }

    private var keys: [Key] = []
    private var index: [Key: Int32] = [:]
    /// `asciiNext[state * 128 + scalar]`: the next state, ``matched``, or ``unknown``.
    private var asciiNext: [Int32] = []
    private var otherNext: [[UInt32: Int32]] = []
    /// Whether the text matches when it ends in this state: -1 unknown, 0 no, 1 yes.
    private var endsMatching: [Int8] = []
    private var storedInstructions = 0
    /// States made since this DFA was created, to notice a text that keeps making new ones.
    private var added = 0

    private var step: RegexNFAStep

    init(_ program: RegexProgram) {
        step = RegexNFAStep(program)
    }

    /// Whether the program matches anywhere in `text`.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    /// Whether the program matches anywhere in `bytes` (valid UTF-8, as a `String` holds).
    func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = start()
        var position = 0
        let count = bytes.count
        let addedBefore = added
        while position < count {
            let byte = bytes[position]
            var next: Int32
            if byte < 0x80 {
                next = asciiNext[Int(state) &* 128 &+ Int(byte)]
                if next == Self.unknown { next = transition(from: state, on: UInt32(byte)) }
                position &+= 1
            } else {
                let (scalar, length) = Self.decode(bytes, at: position)
                next = otherNext[Int(state)][scalar] ?? transition(from: state, on: scalar)
                position &+= length
            }
            if next == Self.matched { return true }
            state = next
            // Most scalars made a new state: caching costs more than it saves on this text.
            let made = added &- addedBefore
            if made > Self.maxStates / 2, made &* 2 > position {
                return simulate(from: keys[Int(state)], bytes, at: position)
            }
        }
        if endsMatching[Int(state)] < 0 {
            let result = step.follow(keys[Int(state)].waiting, keys[Int(state)].context, next: nil)
            endsMatching[Int(state)] = result ? 1 : 0
        }
        return endsMatching[Int(state)] == 1
    }

    /// Runs the NFA over the rest of the text without building DFA states.
    private func simulate(from key: Key, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var waiting = key.waiting
        var context = key.context
        var position = start
        while position < bytes.count {
            let scalar: UInt32
            if bytes[position] < 0x80 {
                scalar = UInt32(bytes[position])
                position &+= 1
            } else {
                let (decoded, length) = Self.decode(bytes, at: position)
                scalar = decoded
                position &+= length
            }
            if step.follow(waiting, context, next: scalar) { return true }
            swap(&waiting, &step.nextWaiting)
            context = RegexContext(after: scalar, previous: context)
        }
        return step.follow(waiting, context, next: nil)
    }

    // MARK: States

    private func start() -> Int32 {
        let key = Key(waiting: [0], context: .start)
        return index[key] ?? add(key)
    }

    private func transition(from state: Int32, on scalar: UInt32) -> Int32 {
        let key = keys[Int(state)]
        if step.follow(key.waiting, key.context, next: scalar) {
            record(state, scalar, Self.matched)
            return Self.matched
        }
        step.nextWaiting.sort()
        let nextKey = Key(waiting: step.nextWaiting, context: RegexContext(after: scalar, previous: key.context))
        if let known = index[nextKey] {
            record(state, scalar, known)
            return known
        }
        if keys.count >= Self.maxStates || storedInstructions + nextKey.waiting.count > Self.maxStoredInstructions {
            reset()  // `state` is gone with the rest; only the new state is needed from here on
            return add(nextKey)
        }
        let added = add(nextKey)
        record(state, scalar, added)
        return added
    }

    private func record(_ state: Int32, _ scalar: UInt32, _ next: Int32) {
        if scalar < 128 {
            asciiNext[Int(state) * 128 + Int(scalar)] = next
        } else {
            otherNext[Int(state)][scalar] = next
        }
    }

    private func add(_ key: Key) -> Int32 {
        added &+= 1
        let state = Int32(keys.count)
        keys.append(key)
        index[key] = state
        asciiNext.append(contentsOf: repeatElement(Self.unknown, count: 128))
        otherNext.append([:])
        endsMatching.append(-1)
        storedInstructions += key.waiting.count
        return state
    }

    private func reset() {
        keys.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        asciiNext.removeAll(keepingCapacity: true)
        otherNext.removeAll(keepingCapacity: true)
        endsMatching.removeAll(keepingCapacity: true)
        storedInstructions = 0
    }

    // MARK: UTF-8

    /// The scalar starting at `position` (a lead byte of valid UTF-8) and its length in bytes.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (UInt32, Int) {
        let lead = UInt32(bytes[position])
        func continuation(_ offset: Int) -> UInt32 {
            position + offset < bytes.count ? UInt32(bytes[position + offset] & 0x3F) : 0
        }
        if lead < 0xE0 { return ((lead & 0x1F) << 6 | continuation(1), 2) }
        if lead < 0xF0 { return ((lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2), 3) }
        return ((lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3), 4)
    }
}
