@testable import LoupeAsyncHTTPClient
import Testing

/// Which waiting chunks one read of a streamed body joins (a copy) and which it hands on alone.
@Suite("A streamed body's reads join only small chunks")
struct ResponseBodyPipeJoinTests {
    /// What `read()` takes from chunks waiting in this order: the sizes of each read, in turn.
    static func reads(_ sizes: [Int], maxReadBytes: Int = 1 << 20) -> [[Int]] {
        var reads: [[Int]] = []
        var index = 0
        while index < sizes.count {
            var read = [sizes[index]]
            var taken = sizes[index]
            index += 1
            while index < sizes.count, ResponseBodyPipe.joins(sizes[index], after: taken, maxReadBytes: maxReadBytes) {
                read.append(sizes[index])
                taken += sizes[index]
                index += 1
            }
            reads.append(read)
        }
        return reads
    }

    @Test("large chunks go alone: joining them would copy every byte of a big download")
    func largeChunksAlone() {
        #expect(Self.reads([1 << 20, 700_000, 65_536]) == [[1 << 20], [700_000], [65_536]])
    }

    @Test("small chunks join until the read holds 64 KiB, and no large chunk joins them")
    func smallChunksJoin() {
        let small = 16 * 1024
        #expect(Self.reads([small, small, small, small, small]) == [[small, small, small, small], [small]])
        #expect(Self.reads([2048, 1 << 20]) == [[2048], [1 << 20]])
        #expect(Self.reads([100, 200, 300]) == [[100, 200, 300]])
    }

    @Test("a read never passes maxReadBytes")
    func bounded() {
        #expect(Self.reads([3, 3, 3], maxReadBytes: 7) == [[3, 3], [3]])
    }
}
