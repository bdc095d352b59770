/* veles log: versions, newest first, with the profiles filed under each. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/log.h"
#include "project/select.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"
#include "vcs/vcs.h"

static const char log_usage[] =
	"usage: veles log [--oneline] [-n N] [--format text|json] [REV]\n"
	"       veles log --perf KEY [-n N] [--format text|json] [--strict-env] [REV]\n"
	"\n"
	"Lists the versions reachable from REV (default: HEAD), newest first, as\n"
	"git log does, each with its profiles: their ids (any prefix of four digits\n"
	"or more names a profile wherever N@i does), N@i, types and names.\n"
	"\n"
	"  --oneline          one line per version (-s, --short: Perun's spelling)\n"
	"  -n, --max-count N  at most N versions\n"
	"  --profiles-only    skip versions that have no profiles\n"
	"  --format FMT       text (default) or json (with each profile's name,\n"
	"                     type and id)\n"
	"  --perf KEY         instead, the history of one metric: for each location\n"
	"                     (uid [subtype]) matching KEY, its median and quartiles per\n"
	"                     version, oldest first, a sparkline, and the versions where\n"
	"                     it shifted (change points); versions whose profiles were\n"
	"                     measured in different environments (host, CPU, kernel,\n"
	"                     governor, VM, compiler) are warned about\n"
	"  --strict-env       --perf: refuse such a history instead (exit 2)\n";

/* Profiles per version, from one pass over the store; a small open-addressed
 * table keyed by version id so each version costs one lookup. */
struct vslot {
	char id[41];
	struct store_entry *e;
	size_t n;
};

struct vmap {
	struct vslot *slots;
	size_t nslots, count;
	/* The entries' strings: ten thousand profiles share a few types, and
	 * one pool beats twenty thousand small allocations. */
	struct strpool *strs;
};

static size_t vhash(const char *id, size_t mask)
{
	return (size_t)strtoull((char[17]){id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
					   id[8], id[9], id[10], id[11], id[12], id[13], id[14],
					   id[15], 0},
				NULL, 16) &
	       mask;
}

static struct vslot *vmap_find(const struct vmap *m, const char *id)
{
	size_t j;

	if (!m->nslots)
		return NULL;
	for (j = vhash(id, m->nslots - 1); m->slots[j].e; j = (j + 1) & (m->nslots - 1))
		if (memcmp(m->slots[j].id, id, 40) == 0)
			return &m->slots[j];
	return NULL;
}

static void vmap_put(struct vmap *m, const char *id, const struct store_entry *e, size_t n)
{
	size_t j, i;

	if ((m->count + 1) * 2 > m->nslots) {
		struct vmap bigger = {
			xcalloc(m->nslots ? m->nslots * 2 : 256, sizeof(struct vslot)),
			m->nslots ? m->nslots * 2 : 256, 0, m->strs};

		for (i = 0; i < m->nslots; i++)
			if (m->slots[i].e) {
				j = vhash(m->slots[i].id, bigger.nslots - 1);
				while (bigger.slots[j].e)
					j = (j + 1) & (bigger.nslots - 1);
				bigger.slots[j] = m->slots[i];
				bigger.count++;
			}
		free(m->slots);
		*m = bigger;
	}
	j = vhash(id, m->nslots - 1);
	while (m->slots[j].e)
		j = (j + 1) & (m->nslots - 1);
	memcpy(m->slots[j].id, id, 41);
	m->slots[j].e = xcalloc(n ? n : 1, sizeof(*e));
	if (!m->strs)
		m->strs = strpool_new();
	for (i = 0; i < n; i++) {
		/* Pool strings stay put as the pool grows; the pool owns them. */
		m->slots[j].e[i].type =
			(char *)strpool_get(m->strs, strpool_intern_cstr(m->strs, e[i].type));
		m->slots[j].e[i].name =
			(char *)strpool_get(m->strs, strpool_intern_cstr(m->strs, e[i].name));
		memcpy(m->slots[j].e[i].blob, e[i].blob, 41);
	}
	m->slots[j].n = n;
	m->count++;
}

static int collect_version(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	if (n)
		vmap_put(arg, version, e, n);
	return 0;
}

/* One line per version names only the types: the names and ids are left
 * out. */
static int collect_types(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	struct store_entry few[64];
	size_t i;

	if (n > ARRAY_SIZE(few))
		return collect_version(version, e, n, arg);
	for (i = 0; i < n; i++)
		few[i] = (struct store_entry){e[i].type, (char *)"", ""};
	return collect_version(version, few, n, arg);
}

static void vmap_free(struct vmap *m)
{
	size_t i;

	for (i = 0; i < m->nslots; i++)
		free(m->slots[i].e);
	free(m->slots);
	strpool_free(m->strs);
}

struct log_state {
	struct vmap map;
	enum out_format fmt;
	bool oneline, profiles_only, plain;
	size_t shown;
	struct buf out;
};

/* "3 profiles: 2 time, 1 memory"; entries come sorted by type. */
static void describe(struct buf *b, const struct vslot *s)
{
	size_t i, run = 0;

	if (!s) {
		buf_adds(b, "no profiles");
		return;
	}
	buf_addf(b, "%zu profile%s: ", s->n, s->n == 1 ? "" : "s");
	for (i = 0; i < s->n; i++) {
		run++;
		if (i + 1 == s->n || strcmp(s->e[i].type, s->e[i + 1].type) != 0) {
			buf_addf(b, "%s%zu %s", b->data[b->len - 1] == ' ' ? "" : ", ", run,
				 s->e[i].type);
			run = 0;
		}
	}
}

static void version_label(struct buf *b, const struct vcs_version *v, bool plain, bool full)
{
	if (plain)
		buf_addf(b, "v%u (%.7s)", v->counter, v->id);
	else
		buf_addf(b, "%.*s", full ? 40 : 7, v->id);
}

static void print_text(struct log_state *st, const struct vcs_version *v, const struct vslot *s)
{
	struct buf *b = &st->out;
	char date[64];
	time_t t = (time_t)(v->time + v->tz_offset * 60);
	struct tm tm;
	const char *p;

	if (st->oneline) {
		version_label(b, v, st->plain, false);
		buf_adds(b, " [");
		describe(b, s);
		buf_addf(b, "] %s\n", v->summary);
		return;
	}
	buf_adds(b, "version ");
	version_label(b, v, st->plain, true);
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	buf_addf(b, "\nAuthor:   %s <%s>\nDate:     %s %c%02d%02d\nProfiles: ", v->author, v->email,
		 date, v->tz_offset < 0 ? '-' : '+', abs(v->tz_offset) / 60,
		 abs(v->tz_offset) % 60);
	describe(b, s);
	buf_addc(b, '\n');
	/* Each profile by its id, which names it wherever N@i does and, unlike
	 * N@i, stays the same when profiles are added. */
	for (size_t i = 0; s && i < s->n; i++) {
		char id[PROFILE_SHORT_ID + 1];

		buf_addf(b, "  %s  %zu@i  %-6s  %s\n", profile_short_id(s->e[i].blob, id), i,
			 s->e[i].type, s->e[i].name);
	}
	buf_addc(b, '\n');
	for (p = v->message; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		buf_addf(b, "    %.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
	buf_addc(b, '\n');
}

static void add_json_field(struct buf *b, const char *key, const char *value)
{
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, value, strlen(value));
}

static void print_json(struct log_state *st, const struct vcs_version *v, const struct vslot *s)
{
	struct buf *b = &st->out;
	size_t i;

	buf_adds(b, st->shown ? ",\n" : "[\n");
	buf_addf(b, "{\"id\":\"%s\"", v->id);
	if (st->plain)
		buf_addf(b, ",\"number\":%u", v->counter);
	add_json_field(b, "author", v->author);
	add_json_field(b, "email", v->email);
	buf_addf(b, ",\"time\":%lld", (long long)v->time);
	add_json_field(b, "summary", v->summary);
	buf_adds(b, ",\"parents\":[");
	for (i = 0; i < v->nparents; i++)
		buf_addf(b, "%s\"%s\"", i ? "," : "", v->parents[i]);
	buf_adds(b, "],\"profiles\":[");
	for (i = 0; s && i < s->n; i++) {
		buf_addf(b, "%s{\"index\":\"%zu@i\"", i ? "," : "", i);
		add_json_field(b, "type", s->e[i].type);
		add_json_field(b, "name", s->e[i].name);
		buf_addf(b, ",\"id\":\"%s\"}", s->e[i].blob);
	}
	buf_adds(b, "]}");
}

static int show_version(const struct vcs_version *v, void *arg)
{
	struct log_state *st = arg;
	const struct vslot *s = vmap_find(&st->map, v->id);

	if (st->profiles_only && !s)
		return 0;
	if (st->fmt == FORMAT_JSON)
		print_json(st, v, s);
	else
		print_text(st, v, s);
	st->shown++;
	/* Flush in blocks: one write per version would dominate on long logs. */
	if (st->out.len > 1 << 16) {
		fwrite(st->out.data, 1, st->out.len, stdout);
		buf_reset(&st->out);
	}
	return 0;
}

int cmd_log(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"oneline", no_argument, NULL, 'o'},
		{"short", no_argument, NULL, 'o'},
		{"max-count", required_argument, NULL, 'n'},
		{"profiles-only", no_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'},
		{"perf", required_argument, NULL, 'P'},
		{"strict-env", no_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct log_state st = {0};
	unsigned long limit = 0;
	const char *perf = NULL;
	bool strict_env = false;
	char from[41];
	int c, ret;

	while ((c = getopt_long(argc, argv, "n:hs", opts, NULL)) != -1) {
		if (c == 's')
			c = 'o';
		switch (c) {
		case 'o':
			st.oneline = true;
			break;
		case 'n':
			if (cli_parse_uint("log", "-n", optarg, &limit) < 0)
				return 2;
			break;
		case 'p':
			st.profiles_only = true;
			break;
		case 'f':
			if (cli_parse_format("log", optarg, &st.fmt) < 0)
				return 2;
			break;
		case 'P':
			perf = optarg;
			break;
		case 'E':
			strict_env = true;
			break;
		case 'h':
			fputs(log_usage, stdout);
			return 0;
		default:
			return cli_bad_option("log", argv);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("log", "takes at most one revision");
	if (optind < argc && cli_resolve_version(ctx, argv[optind], from) < 0)
		return 1;
	ret = optind < argc ? 0 : vcs_head(ctx->vcs, from);
	if (ret == ERR_NOTFOUND) {
		if (st.fmt == FORMAT_JSON)
			puts("[]");
		return 0;
	}
	if (perf)
		return log_perf(ctx, from, limit, perf, st.fmt, strict_env);
	st.plain = vcs_kind(ctx->vcs) == VCS_PLAIN;
	ret = store_each_version(ctx->store, st.oneline ? collect_types : collect_version, &st.map);
	if (ret == 0)
		ret = vcs_walk(ctx->vcs, from, limit, show_version, &st);
	if (st.fmt == FORMAT_JSON)
		buf_adds(&st.out, st.shown ? "\n]\n" : "[]\n");
	fwrite(buf_str(&st.out), 1, st.out.len, stdout);
	buf_release(&st.out);
	vmap_free(&st.map);
	return ret < 0 ? cli_fail() : 0;
}
