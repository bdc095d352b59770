/*
 * The profile reader: the JSON events of json_sax.c turned into the column
 * model, for every resource layout Perun has written (see
 * docs/profile-format.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/compact_priv.h"
#include "profile/json_sax.h"
#include "profile/profile_priv.h"
#include "profile/read_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/strpool.h"

#define KEY_IS(j, lit) ((j)->slen == sizeof(lit) - 1 && memcmp((j)->s, lit, sizeof(lit) - 1) == 0)

/* Moves a string value into @dst (freeing the old one). */
static void take_str(struct reader *r, char **dst)
{
	free(*dst);
	*dst = xstrndup(r->j.s, r->j.slen);
}

/* Reads the next value as compact JSON text into @dst. */
static int take_raw(struct reader *r, char **dst)
{
	struct buf b = BUF_INIT;
	int ret = jsax_capture(&r->j, jsax_next(&r->j), &b);

	if (ret < 0) {
		buf_release(&b);
		return ret;
	}
	free(*dst);
	*dst = buf_detach(&b, NULL);
	return 0;
}

/* Keeps the member whose key is the current event, as raw JSON. */
static int keep_member(struct reader *r, struct kv **arr, size_t *n)
{
	struct kv kv = {xstrndup(r->j.s, r->j.slen), NULL};
	int ret = take_raw(r, &kv.value);

	if (ret < 0) {
		free(kv.key);
		return ret;
	}
	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = kv;
	return 0;
}

static int expect(struct reader *r, int want, const char *what)
{
	int ev = jsax_next(&r->j);

	if (ev < 0)
		return ev;
	if (ev != want) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s must be %s", what,
			 want == JEV_OBJ_START ? "an object" : "a list");
		return jsax_error(&r->j, msg);
	}
	return 0;
}

static int read_units(struct reader *r)
{
	struct profile *p = r->p;
	int ev;

	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		struct kv kv = {xstrndup(r->j.s, r->j.slen), NULL};

		ev = jsax_next(&r->j);
		if (ev == JEV_STR) {
			kv.value = xstrndup(r->j.s, r->j.slen);
		} else {
			struct buf b = BUF_INIT;

			if ((ev = jsax_capture(&r->j, ev, &b)) < 0) {
				free(kv.key);
				buf_release(&b);
				return ev;
			}
			kv.value = buf_detach(&b, NULL);
		}
		p->units = xrealloc(p->units, (p->nunits + 1) * sizeof(*p->units));
		p->units[p->nunits++] = kv;
	}
	return ev < 0 ? ev : 0;
}

/* A header string member, or raw JSON kept in header_extra. */
static int header_str(struct reader *r, char **dst)
{
	struct profile *p = r->p;
	char *key = xstrndup(r->j.s, r->j.slen);
	int ev = jsax_next(&r->j), ret = 0;

	if (ev == JEV_STR) {
		take_str(r, dst);
	} else if (ev >= 0) {
		struct kv kv = {key, NULL};
		struct buf b = BUF_INIT;

		ret = jsax_capture(&r->j, ev, &b);
		kv.value = buf_detach(&b, NULL);
		if (ret == 0) {
			p->header_extra = xrealloc(
				p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
			p->header_extra[p->nheader_extra++] = kv;
			return 0;
		}
		free(kv.value);
	}
	free(key);
	return ev < 0 ? ev : ret;
}

static int read_header(struct reader *r)
{
	struct profile *p = r->p;
	char *ours = NULL;
	int ev, ret;

	if ((ret = expect(r, JEV_OBJ_START, "header")) < 0)
		return ret;
	r->has_header = true;
	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		if (KEY_IS(&r->j, "type")) {
			ret = header_str(r, &p->type);
		} else if (KEY_IS(&r->j, "cmd")) {
			ret = header_str(r, &p->cmd);
		} else if (KEY_IS(&r->j, "args") || KEY_IS(&r->j, "params")) {
			p->args_is_params = KEY_IS(&r->j, "params");
			ret = header_str(r, &p->args);
		} else if (KEY_IS(&r->j, "workload")) {
			ret = header_str(r, &p->workload);
		} else if (KEY_IS(&r->j, "units")) {
			if ((ret = expect(r, JEV_OBJ_START, "header.units")) == 0)
				ret = read_units(r);
		} else if (KEY_IS(&r->j, "veles_type")) {
			/* Our own type, written beside the one Perun knows. */
			ret = header_str(r, &ours);
		} else {
			ret = keep_member(r, &p->header_extra, &p->nheader_extra);
		}
		if (ret < 0) {
			free(ours);
			return ret;
		}
	}
	if (ours && *ours) {
		free(p->type);
		p->type = ours;
	} else {
		free(ours);
	}
	return ev < 0 ? ev : 0;
}

static int read_collector(struct reader *r)
{
	struct profile *p = r->p;
	int ev, ret = 0;

	if ((ret = expect(r, JEV_OBJ_START, "collector_info")) < 0)
		return ret;
	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		if (KEY_IS(&r->j, "name")) {
			if ((ev = jsax_next(&r->j)) == JEV_STR)
				take_str(r, &p->collector);
			else
				ret = jsax_skip(&r->j, ev);
		} else if (KEY_IS(&r->j, "params")) {
			ret = take_raw(r, &p->collector_params);
		} else {
			ret = jsax_skip(&r->j, jsax_next(&r->j));
		}
		if (ret < 0)
			return ret;
	}
	return ev < 0 ? ev : 0;
}

static int read_member(struct reader *r)
{
	struct profile *p = r->p;
	int ev;

	if (KEY_IS(&r->j, "origin")) {
		if ((ev = jsax_next(&r->j)) == JEV_STR)
			take_str(r, &p->origin);
		else if (ev != JEV_NULL)
			return ev < 0 ? ev : jsax_error(&r->j, "origin must be a string");
		return 0;
	}
	if (KEY_IS(&r->j, "header"))
		return read_header(r);
	if (KEY_IS(&r->j, "collector_info"))
		return read_collector(r);
	if (KEY_IS(&r->j, "postprocessors"))
		return take_raw(r, &p->postprocessors);
	if (KEY_IS(&r->j, "models"))
		return take_raw(r, &p->models);
	if (KEY_IS(&r->j, "resources")) {
		r->has_res = true;
		ev = jsax_next(&r->j);
		if (ev == JEV_OBJ_START)
			return read_typed_resources(r);
		if (ev == JEV_ARR_START)
			return read_res_list(r, -1);
		return ev < 0 ? ev : jsax_error(&r->j, "resources must be an object or a list");
	}
	if (KEY_IS(&r->j, "resource_type_map")) {
		if ((ev = expect(r, JEV_OBJ_START, "resource_type_map")) < 0)
			return ev;
		return read_type_map(r);
	}
	if (KEY_IS(&r->j, "global")) {
		r->has_res = true;
		if ((ev = expect(r, JEV_OBJ_START, "global")) < 0)
			return ev;
		return read_global(r);
	}
	if (KEY_IS(&r->j, "snapshots")) {
		r->has_res = true;
		if ((ev = expect(r, JEV_ARR_START, "snapshots")) < 0)
			return ev;
		return read_snapshots(r);
	}
	return keep_member(r, &p->extra, &p->nextra);
}

static int read_profile(struct reader *r)
{
	const char *name = r->j.name;
	int ev, ret;

	ev = jsax_next(&r->j);
	if (ev < 0)
		return ev;
	if (ev != JEV_OBJ_START)
		return jsax_error(&r->j, "expected a JSON object");
	while ((ev = jsax_next(&r->j)) == JEV_KEY)
		if ((ret = read_member(r)) < 0)
			return ret;
	if (ev < 0)
		return ev;
	if ((ev = jsax_next(&r->j)) != JEV_EOF)
		return ev < 0 ? ev : jsax_error(&r->j, "unexpected data after the end");
	if (!r->has_header)
		return err_set(ERR_INVALID, "%s: missing key header", name);
	if (!r->p->type)
		return err_set(ERR_INVALID, "%s: missing key header.type", name);
	if (!r->has_res)
		return err_set(ERR_INVALID, "%s: missing key resources (or global, snapshots)",
			       name);
	return 0;
}

/* Runs the reader over an initialised tokenizer. */
static int load_with(struct jsax *j, struct profile **out)
{
	struct reader r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.j = *j;
	r.p = profile_new();
	ret = read_profile(&r);
	*j = r.j;
	reader_release(&r);
	if (ret < 0) {
		profile_free(r.p);
		*out = NULL;
		return ret;
	}
	*out = r.p;
	return 0;
}

/* Objects from a Perun store start with "profile TYPE SIZE\0". */
static size_t perun_header_len(const char *d, size_t len)
{
	const char *nul;

	if (len < 8 || memcmp(d, "profile ", 8) != 0)
		return 0;
	nul = memchr(d, '\0', len < 256 ? len : 256);
	return nul ? (size_t)(nul - d) + 1 : 0;
}

int profile_load_mem(const void *data, size_t len, const char *name, struct profile **out)
{
	struct jsax j;
	size_t skip;
	int ret;

	if (profile_is_compact(data, len))
		return profile_decode(data, len, name, out);
	if (compression_detect(data, len) != COMP_NONE) {
		struct buf plain = BUF_INIT;

		ret = compression_decompress(data, len, &plain);
		if (ret < 0) {
			buf_release(&plain);
			return err_prefix(ret, "%s", name);
		}
		skip = perun_header_len(plain.data, plain.len);
		jsax_init_mem(&j, plain.data + skip, plain.len - skip, name);
		ret = load_with(&j, out);
		jsax_release(&j);
		buf_release(&plain);
		return ret;
	}
	skip = perun_header_len(data, len);
	jsax_init_mem(&j, (const char *)data + skip, len - skip, name);
	ret = load_with(&j, out);
	jsax_release(&j);
	return ret;
}

/* Below this a mapping costs more than reading. */
#define MAP_MIN (256 * 1024)

/*
 * Loads a regular file read from its start by mapping it: no copy into a
 * buffer of ours, and the parsed pages go back to the kernel as the parse
 * moves on. 1 when it could not be mapped (read it instead).
 */
static int load_mapped(int fd, const char *name, struct profile **out)
{
	struct stat st;
	struct jsax j;
	size_t len, skip;
	char *map;
	int ret;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < MAP_MIN ||
	    (uint64_t)st.st_size > SIZE_MAX || lseek(fd, 0, SEEK_CUR) != 0)
		return 1;
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	madvise(map, len, MADV_SEQUENTIAL);
	if (compression_detect(map, len) != COMP_NONE || profile_is_compact(map, len)) {
		ret = profile_load_mem(map, len, name, out);
	} else {
		skip = perun_header_len(map, len);
		if (skip)
			ret = profile_load_mem(map, len, name, out);
		else {
			jsax_init_map(&j, map, len, name);
			ret = load_with(&j, out);
			jsax_release(&j);
		}
	}
	munmap(map, len);
	return ret;
}

int profile_load_fd(int fd, const char *name, struct profile **out)
{
	struct jsax j;
	size_t skip;
	char *head;
	ssize_t n;
	int ret;

	*out = NULL;
	if ((ret = load_mapped(fd, name, out)) <= 0)
		return ret;
	head = xmalloc(64 * 1024);
	n = read_in_full(fd, head, 64 * 1024);
	if (n < 0) {
		free(head);
		return err_set(ERR_IO, "%s: cannot read: %s", name, strerror(errno));
	}
	if (compression_detect(head, (size_t)n) != COMP_NONE ||
	    profile_is_compact(head, (size_t)n)) {
		/* Compressed and compact profiles are small next to their
		 * JSON: read whole. */
		struct buf all = BUF_INIT;

		buf_add(&all, head, (size_t)n);
		free(head);
		for (;;) {
			buf_grow(&all, 64 * 1024);
			n = read_in_full(fd, all.data + all.len, 64 * 1024);
			if (n <= 0)
				break;
			all.len += (size_t)n;
		}
		if (n < 0) {
			buf_release(&all);
			return err_set(ERR_IO, "%s: cannot read: %s", name, strerror(errno));
		}
		ret = profile_load_mem(all.data, all.len, name, out);
		buf_release(&all);
		return ret;
	}
	skip = perun_header_len(head, (size_t)n);
	jsax_init_fd(&j, fd, name, head + skip, (size_t)n - skip);
	free(head);
	ret = load_with(&j, out);
	jsax_release(&j);
	return ret;
}

int profile_load(const char *path, struct profile **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	*out = NULL;
	if (fd < 0)
		return err_set(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s: %s", path,
			       strerror(errno));
	ret = profile_load_fd(fd, path, out);
	close(fd);
	return ret;
}

bool profile_file_is_compact(const char *path)
{
	char head[CPT_MAGIC_LEN] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read_in_full(fd, head, sizeof(head));
	close(fd);
	return n > 0 && profile_is_compact(head, (size_t)n);
}

int profile_load_header(const char *path, struct profile **out)
{
	struct buf all = BUF_INIT;
	int ret;

	*out = NULL;
	if (!profile_file_is_compact(path))
		return profile_load(path, out);
	ret = file_read_all(path, &all);
	if (ret == 0)
		ret = profile_decode_header((const uint8_t *)all.data, all.len, path, out);
	buf_release(&all);
	return ret;
}
