/*
 * The git index as src/vcs/vcs_quick.c reads it to prove a work tree
 * clean without libgit2 (`veles collect`): its entries, their flags and
 * stat data, and its extensions up to the cache-tree's root. The input is
 * the index of a repository whose HEAD is a loose commit.
 */
#include <stdlib.h>
#include <zlib.h>

#include "fuzz.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

#define HEAD "2d1c0b2f6a1f0e7c3b5a4d6e8f9a0b1c2d3e4f50"

/* Makes directory @rel of the scratch directory. */
static void make_dir(const char *rel)
{
	char *dir = xasprintf("%s/%s", fuzz_dir(), rel);

	if (mkdir_p(dir) < 0)
		abort();
	free(dir);
}

/* A work tree, its .git with HEAD on a branch, and HEAD's commit. */
static char *fixture(void)
{
	static const char commit[] = "commit 50\0tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
	unsigned char z[256];
	uLongf zlen = sizeof(z);

	make_dir("repo/.git/objects/2d");
	make_dir("repo/.git/refs/heads");
	if (compress(z, &zlen, (const unsigned char *)commit, sizeof(commit) - 1) != Z_OK)
		abort();
	fuzz_file("repo/.git/HEAD", "ref: refs/heads/main\n", 21);
	fuzz_file("repo/.git/refs/heads/main", HEAD "\n", 41);
	fuzz_file("repo/.git/objects/2d/1c0b2f6a1f0e7c3b5a4d6e8f9a0b1c2d3e4f50", z, zlen);
	fuzz_file("repo/a.c", "int a;\n", 7);
	return xasprintf("%s/repo", fuzz_dir());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *root;

	if (!root)
		root = fixture();
	fuzz_file("repo/.git/index", data, size);
	vcs_quick_clean(root, HEAD);
	return 0;
}
