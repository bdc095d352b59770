/* Decoding libveles-memory.so's record files (docs/memory-format.md). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collect/memory/memread.h"
#include "memformat.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static const char *const kind_names[] = {
	[VMEM_MALLOC] = "malloc",
	[VMEM_CALLOC] = "calloc",
	[VMEM_REALLOC] = "realloc",
	[VMEM_FREE] = "free",
	[VMEM_POSIX_MEMALIGN] = "posix_memalign",
	[VMEM_ALIGNED_ALLOC] = "aligned_alloc",
	[VMEM_MEMALIGN] = "memalign",
	[VMEM_VALLOC] = "valloc",
	[VMEM_PVALLOC] = "pvalloc",
	[VMEM_REALLOCARRAY] = "reallocarray",
	[VMEM_NEW] = "new",
	[VMEM_NEW_ARRAY] = "new[]",
	[VMEM_DELETE] = "delete",
	[VMEM_DELETE_ARRAY] = "delete[]",
};

const char *mem_kind_name(int kind)
{
	return kind > 0 && kind <= VMEM_KIND_MAX ? kind_names[kind] : NULL;
}

int mem_kind_frees(int kind)
{
	return kind == VMEM_FREE || kind == VMEM_DELETE || kind == VMEM_DELETE_ARRAY;
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A cursor over one block's payload; any overrun sets bad. */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

/* A prefix varint: the first byte's trailing one bits count the bytes
 * that follow it (0 to 7), the rest is the number, least significant
 * first; 0xff is followed by eight bytes of it. */
static uint64_t varint(struct cur *c)
{
	unsigned first, n;
	uint64_t v = 0;

	if (c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	first = *c->p;
	n = first == 0xff ? 9 : (unsigned)__builtin_ctz(~first) + 1;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	if (n == 9) {
		v = get_le(c->p + 1, 8);
	} else {
		v = get_le(c->p, (int)n) >> n;
	}
	c->p += n;
	return v;
}

static uint64_t unzigzag(uint64_t base, uint64_t z)
{
	int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);

	return base + (uint64_t)d;
}

static void read_stack(struct cur *c, struct mem_file *f)
{
	uint64_t id = varint(c), n = varint(c), prev = 0;
	struct mem_stack *s;

	if (c->bad || n > VMEM_MAX_FRAMES || id > VMEM_MAX_STACKS) {
		c->bad = 1;
		return;
	}
	if (id >= f->nstacks) {
		size_t want = id + 1 > f->nstacks * 2 ? id + 1 : f->nstacks * 2;

		f->stacks = xrealloc(f->stacks, want * sizeof(*f->stacks));
		memset(f->stacks + f->nstacks, 0, (want - f->nstacks) * sizeof(*f->stacks));
		f->nstacks = want;
	}
	s = &f->stacks[id];
	free(s->pc);
	s->pc = xmalloc((n ? n : 1) * sizeof(*s->pc));
	s->n = (uint32_t)n;
	s->defined = 1;
	for (uint64_t i = 0; i < n; i++)
		prev = s->pc[i] = unzigzag(prev, varint(c));
}

static void read_events(struct cur *c, struct mem_file *f)
{
	uint32_t tid = (uint32_t)get_le(c->p, 4);
	uint64_t ns = get_le(c->p + 4, 8), addr = 0;
	uint32_t last_id[2] = {0, 0}; /* of allocations, of releases */

	c->p += VMEM_EVENTS_HEAD;
	while (c->p < c->end && !c->bad) {
		int head = *c->p++, kind = head & VMEM_KIND_MASK;
		struct mem_event e = {.tid = tid, .kind = (uint8_t)kind};
		uint64_t z;

		if (head == VMEM_STACK) {
			read_stack(c, f);
			continue;
		}
		if (!mem_kind_name(kind)) {
			c->bad = 1;
			break;
		}
		if (head & VMEM_F_TIME)
			ns += varint(c);
		e.ns = ns;
		if (!(head & VMEM_F_SAME))
			last_id[mem_kind_frees(kind)] = (uint32_t)varint(c);
		e.stack = last_id[mem_kind_frees(kind)];
		z = unzigzag(0, varint(c));
		/* A difference in units of 16: both addresses were aligned. */
		addr = e.addr = addr + (head & VMEM_F_ADDR16 ? z * 16 : z);
		if (!mem_kind_frees(kind))
			e.size = varint(c);
		if (kind == VMEM_REALLOC || kind == VMEM_REALLOCARRAY)
			e.old = unzigzag(e.addr, varint(c));
		if (c->bad)
			break;
		XGROW(f->ev, f->nev + 1, f->cap);
		f->ev[f->nev++] = e;
	}
}

static char *text_copy(const unsigned char *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* A line of /proc/PID/maps: "lo-hi perms ...". */
struct maps_line {
	uint64_t lo, hi;
	const char *text;
	size_t len;
};

static size_t maps_lines(const char *text, struct maps_line **out, size_t n)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *end;
		struct maps_line l = {strtoull(p, &end, 16), 0, p, len};

		if (*end == '-')
			l.hi = strtoull(end + 1, NULL, 16);
		if (l.hi > l.lo) {
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = l;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static int by_start(const void *a, const void *b)
{
	const struct maps_line *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The runtime writes the maps when it starts, before each dlclose and at
 * the end: a library unloaded since is only in an earlier block. Its
 * lines are kept where nothing mapped later overlaps them, so that its
 * frames keep their names; the later block wins any overlap.
 */
static char *maps_merge(const char *old, const char *new)
{
	struct maps_line *l = NULL;
	size_t nnew = maps_lines(new, &l, 0), n = maps_lines(old, &l, nnew), kept = nnew;
	struct buf out = BUF_INIT;

	for (size_t i = nnew; i < n; i++) {
		bool clash = false;

		for (size_t j = 0; j < nnew && !clash; j++)
			clash = l[i].lo < l[j].hi && l[j].lo < l[i].hi;
		if (!clash)
			l[kept++] = l[i];
	}
	if (kept > 1) /* l is NULL when neither block has a line */
		qsort(l, kept, sizeof(*l), by_start);
	for (size_t i = 0; i < kept; i++) {
		buf_add(&out, l[i].text, l[i].len);
		buf_addc(&out, '\n');
	}
	free(l);
	return buf_detach(&out, NULL);
}

static void read_block(int kind, const unsigned char *p, size_t n, struct mem_file *f)
{
	struct cur c = {p, p + n, 0};

	switch (kind) {
	case VMEM_BLOCK_EVENTS:
		if (n >= VMEM_EVENTS_HEAD)
			read_events(&c, f);
		break;
	case VMEM_BLOCK_MAPS: {
		char *text = text_copy(p, n);

		if (f->maps) {
			char *merged = maps_merge(f->maps, text);

			free(text);
			text = merged;
		}
		free(f->maps);
		f->maps = text;
		break;
	}
	case VMEM_BLOCK_EXE:
		free(f->exe);
		f->exe = text_copy(p, n);
		break;
	case VMEM_BLOCK_FLUSHED:
		if (n >= 8) {
			f->flushed = xrealloc(f->flushed, (f->nflushed + 1) * sizeof(*f->flushed));
			f->flushed[f->nflushed++] = get_le(p, 8);
		}
		break;
	case VMEM_BLOCK_END:
		if (n >= 10) {
			f->end = p[8];
			f->end_signal = p[9];
		}
		break;
	default: /* a newer writer's block: skipped, as the format allows */
		break;
	}
}

int mem_parse(const unsigned char *data, size_t len, const char *name, struct mem_file *f)
{
	size_t at = VMEM_HEADER_LEN;

	if (len < VMEM_HEADER_LEN || memcmp(data, VMEM_MAGIC, VMEM_MAGIC_LEN) != 0)
		return err_set(ERR_PARSE, "%s: not a memory record file", name);
	if (get_le(data + 8, 4) != VMEM_VERSION)
		return err_set(ERR_PARSE, "%s: memory records of version %u, this veles reads %d",
			       name, (unsigned)get_le(data + 8, 4), VMEM_VERSION);
	f->pid = (uint32_t)get_le(data + 12, 4);
	f->ppid = (uint32_t)get_le(data + 16, 4);
	f->start_ns = get_le(data + 24, 8);
	while (at + VMEM_BLOCK_HEAD <= len) {
		size_t n = (size_t)get_le(data + at + 1, 4);

		if (n > len - at - VMEM_BLOCK_HEAD) {
			f->truncated = 1;
			break;
		}
		read_block(data[at], data + at + VMEM_BLOCK_HEAD, n, f);
		at += VMEM_BLOCK_HEAD + n;
	}
	if (at < len && !f->truncated)
		f->truncated = 1;
	return 0;
}

int mem_read_file(const char *path, struct mem_file *f)
{
	struct buf b = BUF_INIT;
	int ret = file_read_all(path, &b);

	if (ret == 0)
		ret = mem_parse((const unsigned char *)b.data, b.len, path, f);
	buf_release(&b);
	return ret;
}

static bool was_flushed(const struct mem_file *f, uint64_t seq)
{
	for (size_t i = 0; i < f->nflushed; i++)
		if (f->flushed[i] == seq)
			return true;
	return false;
}

void mem_parse_live(const unsigned char *data, size_t len, struct mem_file *f)
{
	const size_t least = VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD;
	size_t before = f->nev;

	for (size_t at = 0; len - at >= VMEM_LIVE_HEAD;) {
		const unsigned char *s = data + at;
		uint64_t used = get_le(s + VMEM_LIVE_LEN, 8);
		size_t off = (size_t)get_le(s + VMEM_LIVE_BUF, 4);
		size_t slot = (size_t)get_le(s + VMEM_LIVE_SLOT, 4);

		if (memcmp(s, VMEM_LIVE_MAGIC, VMEM_MAGIC_LEN) != 0 || slot < VMEM_LIVE_HEAD ||
		    slot > len - at)
			break;
		/* A buffer written out (FLUSHED) or empty adds nothing; the
		 * length counts whole records only, but is checked all the same. */
		if (off >= VMEM_LIVE_HEAD && off <= slot && used > least && used <= slot - off &&
		    !was_flushed(f, get_le(s + VMEM_LIVE_SEQ, 8)))
			read_block(VMEM_BLOCK_EVENTS, s + off + VMEM_BLOCK_HEAD,
				   (size_t)used - VMEM_BLOCK_HEAD, f);
		at += slot;
	}
	f->nlive += f->nev - before;
}

int mem_read_live(const char *path, struct mem_file *f)
{
	struct buf b = BUF_INIT;
	int ret = path_exists(path) ? file_read_all(path, &b) : 0;

	if (ret == 0)
		mem_parse_live((const unsigned char *)b.data, b.len, f);
	buf_release(&b);
	return ret;
}

void mem_file_release(struct mem_file *f)
{
	free(f->flushed);
	for (size_t i = 0; i < f->nstacks; i++)
		free(f->stacks[i].pc);
	free(f->stacks);
	free(f->ev);
	free(f->exe);
	free(f->maps);
	memset(f, 0, sizeof(*f));
}
