#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// Keeps freed heap memory for the next allocation instead of handing it back to the system at once.
///
/// `export` and `import` read and free a body at a time, up to a megabyte each. glibc serves blocks that large with
/// fresh `mmap`s, or returns the heap's top to the system after a batch, so every body was faulted in page by page
/// again: most of an export of large bodies' kernel time. Blocks below 32 MB now come from the heap,
/// and up to 64 MB freed at its top stays there; peak memory is what the largest batch needs, as before.
enum MallocTuning {
    /// Whether the allocator took the settings (glibc only; elsewhere nothing is done).
    @discardableResult
    static func keepFreedMemory() -> Bool {
        #if canImport(Glibc)
        mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1
        #else
        false
        #endif
    }
}
