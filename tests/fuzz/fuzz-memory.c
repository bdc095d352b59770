/*
 * The files the memory runtime (libveles-memory.so) writes, read by
 * src/collect/memory/memread.c: a process's record file, and the live
 * file its threads' buffers sit in when it was killed. The input is read
 * as both, into one process, and its events are then put in the order a
 * replay of the run trusts (order.c), as the collector does.
 */
#include <stdlib.h>

#include "collect/memory/memread.h"
#include "collect/memory/order.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_file f[2] = {{0}};
	struct mem_ref *r;
	size_t n;

	mem_parse(data, size, "1.vmem", &f[0]);
	mem_parse_live(data, size, &f[0]);
	/* A second process with the same events: the order compares
	 * addresses across processes within one clock tick. */
	mem_parse(data, size, "2.vmem", &f[1]);
	r = mem_order(f, 2, &n);
	free(r);
	mem_file_release(&f[0]);
	mem_file_release(&f[1]);
	return 0;
}
