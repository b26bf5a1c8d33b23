@testable import loupe
import Testing

@Suite("Allocator tuning")
struct MallocTuningTests {
    /// `export` and `import` count on it: a value glibc refuses (a threshold above its 32 MB limit) makes this false.
    @Test("glibc takes the settings export and import ask for")
    func applied() {
        #if canImport(Glibc)
        #expect(MallocTuning.keepFreedMemory())
        #else
        #expect(!MallocTuning.keepFreedMemory())
        #endif
    }
}
