// The in-RAM floor of the external-memory sorts: the same N splitmix64 keys as stxxl-sort.cpp
// (and org.lockstep.applications.Keys.key), generated into one array in RAM, sorted with
// __gnu_parallel::sort on all cores (OpenMP), then checked for order and for the same multiset.
// No disk, no budget: what sorting these keys costs on this machine's cores.
//
//   ram-sort N_KEYS [SEED]        (SEED default 12345)
//
// Prints one line:
//   RESULT algo=ram n=.. bytes=.. threads=.. gen_s=.. sort_s=.. check_s=.. sort_MBps=.. ok=0|1
#include <parallel/algorithm>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <omp.h>

namespace {

using Key = std::uint64_t;
using Clock = std::chrono::steady_clock;

Key splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s N_KEYS [SEED]\n", argv[0]);
        return 2;
    }
    const std::uint64_t n = std::strtoull(argv[1], nullptr, 10);
    std::uint64_t state = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 12345;
    std::unique_ptr<Key[]> keys(new Key[n]);

    auto start = Clock::now();
    std::uint64_t xor_written = 0, sum_written = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const Key k = splitmix64(state);
        keys[i] = k;
        xor_written ^= k;
        sum_written += k;
    }
    const double generate_s = since(start);

    start = Clock::now();
    __gnu_parallel::sort(keys.get(), keys.get() + n);
    const double sort_s = since(start);

    start = Clock::now();
    bool ordered = true;
    std::uint64_t xor_read = 0, sum_read = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (i > 0 && keys[i] < keys[i - 1]) ordered = false;
        xor_read ^= keys[i];
        sum_read += keys[i];
    }
    const double check_s = since(start);

    const bool ok = ordered && xor_read == xor_written && sum_read == sum_written;
    const double bytes = static_cast<double>(n) * sizeof(Key);
    std::printf("RESULT algo=ram n=%llu bytes=%.0f threads=%d gen_s=%.3f sort_s=%.3f check_s=%.3f sort_MBps=%.1f ok=%d\n",
                static_cast<unsigned long long>(n), bytes, omp_get_max_threads(), generate_s, sort_s, check_s,
                bytes / sort_s / 1e6, ok ? 1 : 0);
    return ok ? 0 : 1;
}
