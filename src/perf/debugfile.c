/* Finding an object's separate debug file by build-id or debuglink. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "perf/debugfile.h"
#include "util/xalloc.h"

#define BUILD_ID_MAX 64

struct build_id {
	unsigned char bytes[BUILD_ID_MAX];
	size_t len;
};

static bool read_build_id(Elf *e, struct build_id *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	id->len = 0;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)data->d_buf + name_off;

			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh.n_descsz > 0 &&
			    nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id->bytes, (const char *)data->d_buf + desc_off,
				       nh.n_descsz);
				id->len = nh.n_descsz;
				return true;
			}
		}
	}
	return false;
}

/* The .gnu_debuglink section: a file name, padding to 4 bytes, a CRC-32. */
static char *read_debuglink(Elf *e, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;
		Elf_Data *data;
		const unsigned char *p;
		size_t len, at;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink") != 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		p = data->d_buf;
		len = strnlen((const char *)p, data->d_size);
		at = (len + 4) & ~(size_t)3;
		if (len == 0 || strchr((const char *)p, '/') || at + 4 > data->d_size)
			return NULL;
		/* The CRC is stored in the object's own byte order. */
		if (elf_getident(e, NULL)[EI_DATA] == ELFDATA2MSB)
			*crc = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 |
			       (uint32_t)p[at + 2] << 8 | p[at + 3];
		else
			*crc = (uint32_t)p[at + 3] << 24 | (uint32_t)p[at + 2] << 16 |
			       (uint32_t)p[at + 1] << 8 | p[at];
		return xstrndup((const char *)p, len);
	}
	return NULL;
}

static bool file_crc(int fd, uint32_t *out)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	*out = (uint32_t)crc;
	return n == 0;
}

/*
 * Whether @cand is @path's debug file: a different file, an ELF object,
 * with the same build-id, or the debuglink's CRC where there is no
 * build-id to compare.
 */
static bool matches(const char *cand, const char *path, const struct build_id *want, bool check_crc,
		    uint32_t crc)
{
	struct stat a, b;
	struct build_id got;
	bool ok = false;
	int fd;
	Elf *e;

	if (stat(cand, &a) != 0 || !S_ISREG(a.st_mode) ||
	    (stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
		return false;
	fd = open(cand, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		if (want->len && read_build_id(e, &got))
			ok = got.len == want->len && memcmp(got.bytes, want->bytes, got.len) == 0;
		else if (check_crc) {
			uint32_t have;

			ok = lseek(fd, 0, SEEK_SET) == 0 && file_crc(fd, &have) && have == crc;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

static char *by_build_id(const char *root, size_t rootlen, const struct build_id *id,
			 const char *path)
{
	char hex[2 * BUILD_ID_MAX + 1];
	char *cand;

	for (size_t i = 0; i < id->len; i++) {
		hex[2 * i] = "0123456789abcdef"[id->bytes[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[id->bytes[i] & 15];
	}
	hex[2 * id->len] = '\0';
	cand = xasprintf("%.*s/.build-id/%.2s/%s.debug", (int)rootlen, root, hex, hex + 2);
	if (matches(cand, path, id, false, 0))
		return cand;
	free(cand);
	return NULL;
}

/* @cand (which it takes) when it is @path's debug file, else NULL. */
static char *take_if(char *cand, const char *path, const struct build_id *id, uint32_t crc)
{
	if (matches(cand, path, id, true, crc))
		return cand;
	free(cand);
	return NULL;
}

char *perf_debug_file(Elf *e, const char *path)
{
	const char *roots = getenv("VELES_DEBUGINFO_PATH");
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	struct build_id id;
	uint32_t crc = 0;
	char *link, *found = NULL;

	if (!roots || !*roots)
		roots = "/usr/lib/debug";
	read_build_id(e, &id);
	for (const char *r = roots; id.len >= 2 && *r && !found;) {
		size_t n = strcspn(r, ":");

		if (n)
			found = by_build_id(r, n, &id, path);
		r += n + (r[n] == ':');
	}
	if (found)
		return found;
	link = read_debuglink(e, &crc);
	if (!link)
		return NULL;
	found = take_if(xasprintf("%.*s/%s", dirlen, path, link), path, &id, crc);
	if (!found)
		found = take_if(xasprintf("%.*s/.debug/%s", dirlen, path, link), path, &id, crc);
	for (const char *r = roots; *r && !found;) {
		size_t n = strcspn(r, ":");

		if (n)
			found = take_if(xasprintf("%.*s%.*s/%s", (int)n, r, dirlen, path, link),
					path, &id, crc);
		r += n + (r[n] == ':');
	}
	free(link);
	return found;
}
