// The external-memory sort Lockstep's `embsp -- sort` is measured against: N unsigned 64-bit
// keys in an stxxl::vector on disk, sorted by stxxl::sort (or stxxl::ksort) within M MiB of
// internal memory, then checked for order and for the same multiset (xor and sum of the keys).
//
//   stxxl-sort sort|ksort N_KEYS M_MIB [SEED]        (SEED default 12345)
//
// Key i is the (i+1)-th splitmix64 output from SEED: the stream of
// org.lockstep.applications.Keys.key, so both sides sort the same data.
// The disks come from STXXL's configuration ($STXXLCFG or ./.stxxl). STXXL's own I/O statistics
// of each phase go to standard output, then one line (ratio = bytes read and written by the
// sort / input bytes):
//   RESULT algo=.. n=.. bytes=.. m_mib=.. gen_s=.. sort_s=.. check_s=.. read_b=.. write_b=..
//          reads=.. writes=.. io_wait_s=.. ratio=.. sort_MBps=.. ok=0|1
#include <stxxl/ksort>
#include <stxxl/sort>
#include <stxxl/stats>
#include <stxxl/timer>
#include <stxxl/vector>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

namespace {

using Key = std::uint64_t;
// A vector cache of two pages of one 2 MiB block each: stxxl::sort streams past it, so almost
// all of the internal memory is the sort's own budget.
using KeyVector = stxxl::VECTOR_GENERATOR<Key, 1, 2, 2 * 1024 * 1024>::result;

struct Ascending {
    bool operator()(const Key& a, const Key& b) const { return a < b; }
    Key min_value() const { return std::numeric_limits<Key>::min(); }
    Key max_value() const { return std::numeric_limits<Key>::max(); }
};

struct WholeKey {
    typedef Key key_type;
    key_type operator()(const Key& k) const { return k; }
    Key min_value() const { return std::numeric_limits<Key>::min(); }
    Key max_value() const { return std::numeric_limits<Key>::max(); }
};

class KeyStream {
public:
    explicit KeyStream(std::uint64_t seed) : state_(seed) {}
    Key next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
private:
    std::uint64_t state_;
};

struct Digest {
    std::uint64_t xor_all = 0, sum = 0, count = 0;
    void add(Key k) { xor_all ^= k; sum += k; ++count; }
    bool operator==(const Digest& o) const { return xor_all == o.xor_all && sum == o.sum && count == o.count; }
};

void report_phase(const char* phase, const stxxl::stats_data& io, double seconds) {
    std::cout << "== " << phase << ": " << seconds << " s\n" << io;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || (std::string(argv[1]) != "sort" && std::string(argv[1]) != "ksort")) {
        std::fprintf(stderr, "usage: %s sort|ksort N_KEYS M_MIB [SEED]\n", argv[0]);
        return 2;
    }
    const std::string algorithm = argv[1];
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const std::uint64_t budget_mib = std::strtoull(argv[3], nullptr, 10);
    const std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 12345;
    const std::uint64_t input_bytes = n * sizeof(Key);

    stxxl::stats* stats = stxxl::stats::get_instance();
    KeyVector keys;
    stxxl::timer clock;

    clock.start();
    stxxl::stats_data before_generate(*stats);
    Digest written;
    keys.resize(n);
    {
        KeyStream stream(seed);
        KeyVector::bufwriter_type writer(keys.begin());
        for (std::uint64_t i = 0; i < n; ++i) {
            Key k = stream.next();
            written.add(k);
            writer << k;
        }
        writer.finish();
    }
    keys.flush();
    const double generate_s = clock.seconds();
    stxxl::stats_data before_sort(*stats);
    report_phase("generate", before_sort - before_generate, generate_s);

    clock.reset();
    clock.start();
    if (algorithm == "sort")
        stxxl::sort(keys.begin(), keys.end(), Ascending(), budget_mib << 20);
    else
        stxxl::ksort(keys.begin(), keys.end(), WholeKey(), budget_mib << 20);
    const double sort_s = clock.seconds();
    stxxl::stats_data after_sort(*stats);
    const stxxl::stats_data sort_io = after_sort - before_sort;
    report_phase("sort", sort_io, sort_s);

    clock.reset();
    clock.start();
    Digest read;
    bool ordered = true;
    Key previous = 0;
    for (KeyVector::bufreader_type reader(keys.cbegin(), keys.cend()); !reader.empty(); ++reader) {
        const Key k = *reader;
        if (read.count > 0 && k < previous) ordered = false;
        previous = k;
        read.add(k);
    }
    const double check_s = clock.seconds();
    report_phase("check", stxxl::stats_data(*stats) - after_sort, check_s);

    const bool ok = ordered && read == written && read.count == n;
    const double read_b = static_cast<double>(sort_io.get_read_volume());
    const double write_b = static_cast<double>(sort_io.get_written_volume());
    std::printf("RESULT algo=%s n=%llu bytes=%llu m_mib=%llu gen_s=%.3f sort_s=%.3f check_s=%.3f "
                "read_b=%.0f write_b=%.0f reads=%u writes=%u io_wait_s=%.3f ratio=%.3f sort_MBps=%.1f ok=%d\n",
                algorithm.c_str(), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(input_bytes), static_cast<unsigned long long>(budget_mib),
                generate_s, sort_s, check_s, read_b, write_b, sort_io.get_reads(), sort_io.get_writes(),
                sort_io.get_io_wait_time(), (read_b + write_b) / static_cast<double>(input_bytes),
                input_bytes / sort_s / 1e6, ok ? 1 : 0);
    return ok ? 0 : 1;
}
