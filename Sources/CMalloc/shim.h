// glibc's allocator tuning (`mallopt`), which the Glibc module leaves out; empty where there is no <malloc.h>.
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif
