// A small Google Benchmark program for t-collect_regex.sh: a fixed-cost
// benchmark and a memcpy family with a bytes counter and a user counter.
// With SLOW defined, BM_memcpy copies its buffer 20 times: the slowdown the
// test plants between two versions.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

#ifndef SLOW
#define SLOW 0
#endif

static void BM_StringCreation(benchmark::State &state)
{
	for (auto _ : state) {
		std::string s;
		benchmark::DoNotOptimize(s);
	}
}
BENCHMARK(BM_StringCreation);

static void BM_memcpy(benchmark::State &state)
{
	size_t n = (size_t)state.range(0);
	std::string src(n, 'x'), dst(n, 'y');

	for (auto _ : state) {
		for (int i = 0; i < (SLOW ? 20 : 1); i++) {
			memcpy(&dst[0], src.data(), n);
			benchmark::DoNotOptimize(dst.data());
			benchmark::ClobberMemory();
		}
	}
	state.SetBytesProcessed((int64_t)state.iterations() * (int64_t)n);
	state.counters["widgets"] = 3;
}
BENCHMARK(BM_memcpy)->Arg(8)->Arg(4096)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
