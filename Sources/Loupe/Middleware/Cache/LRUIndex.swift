import Foundation

/// The bookkeeping of a least-recently-used cache bounded by entry count and bytes: a value type whose mutating
/// methods return what to evict, so the owner only carries it out.
struct LRUIndex<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node: Sendable {
        var value: Value
        var cost: Int
        var older: Key?
        var newer: Key?
    }

    let maxCount: Int
    let maxCost: Int
    private var nodes: [Key: Node] = [:]
    private var oldest: Key?
    private var newest: Key?
    private(set) var totalCost = 0

    init(maxCount: Int, maxCost: Int) {
        self.maxCount = maxCount
        self.maxCost = maxCost
    }

    var count: Int { nodes.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        link(key, node)
        return node.value
    }

    /// Inserts or replaces `key`; returns the keys evicted to stay within bounds (`key` itself if it can never fit).
    mutating func insert(_ value: Value, cost: Int, for key: Key) -> [Key] {
        remove(key)
        guard cost <= maxCost, maxCount > 0 else { return [key] }
        link(key, Node(value: value, cost: cost))
        var evicted: [Key] = []
        while nodes.count > maxCount || totalCost > maxCost, let victim = oldest {
            remove(victim)
            evicted.append(victim)
        }
        return evicted
    }

    /// Forgets `key`.
    mutating func remove(_ key: Key) {
        guard nodes[key] != nil else { return }
        unlink(key)
    }

    private mutating func link(_ key: Key, _ node: Node) {
        var node = node
        node.older = newest
        node.newer = nil
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
        nodes[key] = node
        totalCost += node.cost
    }

    private mutating func unlink(_ key: Key) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        totalCost -= node.cost
    }
}
