/* From an event's name to its perf_event_attr, and the list of all names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "perf/pfm.h"
#include "util/error.h"
#include "util/xalloc.h"

const char *perf_kind_name(enum perf_kind k)
{
	static const char *const names[] = {"hardware",	  "software", "cache",
					    "tracepoint", "pmu",      "raw"};
	return names[k];
}

static bool parse_generic(const char *name, struct perf_event_attr *attr)
{
	size_t n;
	const struct perf_generic *g = perf_generic_table(&n);
	uint64_t config;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(g[i].name, name) == 0 || (g[i].alias && strcmp(g[i].alias, name) == 0)) {
			attr->type = g[i].type;
			attr->config = g[i].config;
			return true;
		}
	}
	if (perf_cache_event(name, &config)) {
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = config;
		return true;
	}
	return false;
}

/* rNNN: a raw PMU code in hexadecimal, as perf takes it. */
static bool parse_raw(const char *name, struct perf_event_attr *attr)
{
	char *end;

	if (name[0] != 'r' || !isxdigit((unsigned char)name[1]))
		return false;
	attr->config = strtoull(name + 1, &end, 16);
	if (*end)
		return false;
	attr->type = PERF_TYPE_RAW;
	return true;
}

/*
 * perf's modifiers after the last ':': u (user), k (kernel), h (hypervisor)
 * say which privilege levels to count, the others then excluded; p, pp,
 * ppp ask for that much skid precision (precise_ip).
 */
static bool parse_modifiers(const char *mods, struct perf_event_attr *attr)
{
	size_t precise = 0;
	bool u, k, h;

	if (!*mods || strspn(mods, "ukhp") != strlen(mods))
		return false;
	for (const char *c = mods; *c; c++)
		precise += *c == 'p';
	if (precise > 3)
		return false;
	attr->precise_ip = precise & 3;
	u = strchr(mods, 'u') != NULL;
	k = strchr(mods, 'k') != NULL;
	h = strchr(mods, 'h') != NULL;
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return true;
}

static int parse_plain(const char *name, struct perf_event_attr *attr);

/* Sets the error back to a message kept earlier, returning @code. */
static int restore_error(int code, char *msg)
{
	err_set(code, "%s", msg);
	free(msg);
	return code;
}

/*
 * NAME:MODS is NAME with perf's modifiers before it is anything else:
 * libpfm4 would read "cycles:u" too, but without its privilege levels. Of
 * the errors, one that says more than "unknown" (tracefs not mounted, not
 * readable), the whole name's or else its base's, is kept; a known base
 * with bad modifiers is an unknown name.
 */
int perf_event_parse(const char *name, struct perf_event_attr *attr)
{
	const char *colon = strrchr(name, ':');
	char *base, *why = NULL;
	int ret, bret;

	if (!colon || colon == name || colon[-1] == ':' || !colon[1])
		return parse_plain(name, attr);
	base = xstrndup(name, (size_t)(colon - name));
	bret = parse_plain(base, attr);
	free(base);
	if (bret == 0 && parse_modifiers(colon + 1, attr))
		return 0;
	if (bret < 0 && bret != ERR_NOTFOUND)
		why = xstrdup(err_msg());
	ret = parse_plain(name, attr);
	if (ret == 0 || (ret != ERR_NOTFOUND && bret != 0)) {
		free(why);
		return ret;
	}
	if (why)
		return restore_error(bret, why);
	return err_set(ERR_NOTFOUND, "unknown event '%s' (see veles list)", name);
}

static int parse_pfm(const char *name, struct perf_event_attr *attr)
{
	struct pfm_code code;
	int ret = perf_pfm_encode(name, &code);

	if (ret < 0)
		return ret;
	attr->type = code.type;
	attr->config = code.config;
	attr->config1 = code.config1;
	attr->config2 = code.config2;
	return 0;
}

static int parse_plain(const char *name, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (parse_generic(name, attr) || parse_raw(name, attr))
		return 0;
	if (strchr(name, ':') && !strstr(name, "::")) {
		uint64_t id;
		int ret = perf_tracepoint_id(name, &id);
		char *why;

		if (ret == 0) {
			attr->type = PERF_TYPE_TRACEPOINT;
			attr->config = id;
			return 0;
		}
		/* libpfm4 takes EVENT:UMASK without its PMU:: too. */
		why = xstrdup(err_msg());
		if (parse_pfm(name, attr) == 0) {
			free(why);
			return 0;
		}
		return restore_error(ret, why);
	}
	return parse_pfm(name, attr);
}

/* ---- listing ---- */

struct list_acc {
	const char *pattern;
	enum perf_kind kind;
	struct perf_event_info *v;
	size_t n, cap;
	bool tp_probed, tp_ok;
};

static bool matches(const char *pattern, const char *name, const char *desc)
{
	return !pattern || strcasestr(name, pattern) || strcasestr(desc, pattern);
}

static void add_event(const char *name, const char *desc, void *arg)
{
	struct list_acc *a = arg;
	struct perf_event_attr attr;

	if (!matches(a->pattern, name, desc))
		return;
	XGROW(a->v, a->n + 1, a->cap);
	a->v[a->n] = (struct perf_event_info){xstrdup(name), xstrdup(desc), a->kind, false};
	if (a->kind == PK_TRACEPOINT) {
		/* Opening a tracepoint costs tens of milliseconds (the kernel
		 * registers a probe): one probe answers for all of them. */
		if (!a->tp_probed && perf_event_parse(name, &attr) == 0)
			a->tp_ok = perf_probe(&attr) == 0;
		a->tp_probed = true;
		a->v[a->n].supported = a->tp_ok;
	} else if (a->kind == PK_RAW) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_RAW;
		a->v[a->n].supported = perf_probe(&attr) == 0;
	} else if (perf_event_parse(name, &attr) == 0) {
		a->v[a->n].supported = perf_probe(&attr) == 0;
	}
	a->n++;
}

static void add_generic(struct list_acc *a)
{
	size_t n;
	const struct perf_generic *g = perf_generic_table(&n);
	char name[64];

	for (size_t i = 0; i < n; i++) {
		a->kind = g[i].type == PERF_TYPE_HARDWARE ? PK_HARDWARE : PK_SOFTWARE;
		add_event(g[i].name, g[i].desc, a);
	}
	a->kind = PK_CACHE;
	for (size_t i = 0; perf_cache_event_name(i, name, sizeof(name)); i++)
		if (name[0])
			add_event(name, "hardware cache event", a);
}

int perf_event_list(const char *pattern, struct perf_event_info **out, size_t *n)
{
	struct list_acc a = {.pattern = pattern};

	add_generic(&a);
	a.kind = PK_TRACEPOINT;
	perf_tracepoints(add_event, &a);
	a.kind = PK_PMU;
	perf_pfm_events(add_event, &a);
	a.kind = PK_RAW;
	add_event("rNNN", "raw PMU event code in hexadecimal (see the processor's manual)", &a);
	err_clear();
	*out = a.v;
	*n = a.n;
	return 0;
}

void perf_event_list_free(struct perf_event_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].desc);
	}
	free(v);
}
