// poly N: C++ functions in a namespace, an overloaded member and a free
// function, each called a known number of times, for the trace
// collector's mangled names: area() 3N times (2N of them from
// area(int)), area(int) 2N times, total() N times.
#include <cstdio>
#include <cstdlib>
#include <vector>

static volatile long sink;

namespace geo
{
struct Poly {
	std::vector<int> pts;
	__attribute__((noinline)) long area() const
	{
		long s = 0;
		for (int p : pts)
			s += p;
		sink = s;
		return s;
	}
	__attribute__((noinline)) long area(int scale) const
	{
		sink = scale;
		return area() * scale;
	}
};
} // namespace geo

__attribute__((noinline)) long total(const geo::Poly &p)
{
	long t = p.area(2) + p.area(3);
	sink = t;
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	geo::Poly p;
	long s = 0;

	p.pts.reserve(8);
	for (int i = 0; i < 8; i++)
		p.pts.push_back(i);
	for (int i = 0; i < n; i++)
		s += total(p) + p.area();
	printf("%ld\n", s);
	return 0;
}
