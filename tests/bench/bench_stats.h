#pragma once
// Timing helpers shared by the benchmarks: machines here are noisy, so every figure is a median of
// repeated runs, and tables are whitespace-separated columns with a '#' header (easy for people,
// awk and pandas alike).

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace ampstudio::bench {

inline double medianMs(int repeats, const std::function<void()>& setup, const std::function<void()>& work) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        setup();
        const auto start = std::chrono::steady_clock::now();
        work();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// `setup` runs untimed before each repeat: use it to free the previous repeat's result, so that
// the figure is the work alone and not the destruction of what the last run built.
inline double medianMs(int repeats, const std::function<void()>& work) {
    return medianMs(
        repeats, [] {}, work);
}

// "1000,10000,100000" -> {1000, 10000, 100000} (the --sizes option of the benchmarks).
inline std::vector<std::size_t> parseSizeList(const char* text) {
    std::vector<std::size_t> sizes;
    for (const char* p = text; *p;) {
        char* end = nullptr;
        sizes.push_back(std::strtoull(p, &end, 10));
        if (end == p) {
            break;  // not a number: stop rather than loop
        }
        p = *end == ',' ? end + 1 : end;
    }
    return sizes;
}

// Peak resident set size of this process so far, in MiB.
inline double peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace ampstudio::bench
