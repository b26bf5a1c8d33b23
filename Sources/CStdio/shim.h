// Standard output's stdio state, which Swift 6 cannot reach through `stdout` (a mutable C global) without an error.
#include <errno.h>
#include <stdio.h>

/// Flushes what `print` buffered: 0 when everything written reached the descriptor, the flush's `errno` when it
/// failed, -1 when an earlier write failed (its `errno` is gone by now).
static inline int loupe_stdout_flush_error(void) {
    if (fflush(stdout) != 0) return errno != 0 ? errno : -1;
    return ferror(stdout) ? -1 : 0;
}
