/*
 * Git's pack index and pack, and loose objects, as src/vcs/vcs_quick.c
 * reads them to find HEAD's tree without libgit2. The input is the
 * commit's id (20 bytes), the length of the pack index (4 bytes, little
 * endian), the pack index, and the rest: the pack, and, in a second run,
 * the commit's loose object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *root;
	char id[41], rel[128];
	size_t idx_len;

	if (size < 24)
		return 0;
	if (!root) {
		char *dir = xasprintf("%s/repo/.git/objects/pack", fuzz_dir());
		char *refs = xasprintf("%s/repo/.git/refs/heads", fuzz_dir());

		if (mkdir_p(dir) < 0 || mkdir_p(refs) < 0)
			abort();
		free(dir);
		free(refs);
		fuzz_file("repo/.git/HEAD", "ref: refs/heads/main\n", 21);
		root = xasprintf("%s/repo", fuzz_dir());
	}
	for (int i = 0; i < 20; i++)
		snprintf(id + 2 * i, 3, "%02x", data[i]);
	idx_len = (size_t)data[20] | (size_t)data[21] << 8 | (size_t)data[22] << 16 |
		  (size_t)data[23] << 24;
	data += 24;
	size -= 24;
	if (idx_len > size)
		idx_len = size;
	fuzz_file("repo/.git/refs/heads/main", id, 40);
	fuzz_file("repo/.git/objects/pack/pack-1.idx", data, idx_len);
	fuzz_file("repo/.git/objects/pack/pack-1.pack", data + idx_len, size - idx_len);
	vcs_quick_clean(root, id);

	snprintf(rel, sizeof(rel), "%s/repo/.git/objects/%.2s", fuzz_dir(), id);
	if (mkdir_p(rel) < 0)
		abort();
	snprintf(rel, sizeof(rel), "repo/.git/objects/%.2s/%s", id, id + 2);
	fuzz_file(rel, data + idx_len, size - idx_len);
	vcs_quick_clean(root, id);
	snprintf(rel, sizeof(rel), "%s/repo/.git/objects/%.2s/%s", fuzz_dir(), id, id + 2);
	unlink(rel);
	return 0;
}
