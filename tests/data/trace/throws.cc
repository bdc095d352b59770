// throws N: N exceptions caught a few frames up and N rethrown from a
// catch block to main, for the -pg trace's return trampoline: the
// unwinder must see the real return addresses. Prints how many were
// caught.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) int thrower(int n)
{
	if (n == 0)
		throw std::runtime_error("down");
	return thrower(n - 1) + 1;
}

__attribute__((noinline)) int catcher(int n)
{
	try {
		return thrower(n);
	} catch (const std::exception &) {
		return -1;
	}
}

__attribute__((noinline)) int rethrower(int n)
{
	try {
		return thrower(n);
	} catch (...) {
		throw;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, caught = 0;

	for (long i = 0; i < n; i++) {
		caught += catcher(3) == -1;
		try {
			rethrower(2);
		} catch (...) {
			caught++;
		}
	}
	printf("caught %ld\n", caught);
	return 0;
}
