/* Import modules: dlopen, the helpers handed to them, and the calls. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/format.h"
#include "monitor/modules.h"
#include "util/common.h"
#include "util/fsutil.h"

#ifndef VELES_MODULE_DIR
#define VELES_MODULE_DIR "/usr/local/lib/veles/monitor"
#endif

struct vmon_text {
	struct buf *b;
};

static size_t h_cvt(char *dst, double v, int width, int size_kb)
{
	return mon_cvt(dst, v, width, size_kb != 0);
}

/* Whether @line starts with @c's discriminator, then a space or its end. */
static bool owns(const struct vmon_ctx *c, const char *line)
{
	return !strncmp(line, c->disc, c->disclen) &&
	       (line[c->disclen] == ' ' || !line[c->disclen]);
}

static void h_record(struct vmon_ctx *c, const char *line)
{
	/* Playback hands a record to the module its first word names: a
	 * line without the caller's would go to another module, or nowhere. */
	if (!owns(c, line)) {
		if (!c->bad_record)
			mon_say(c->mods->say, c->mods->say_arg,
				"veles monitor: module %s: record \"%.40s\" does not start with "
				"its discriminator '%s': dropped",
				c->m->name, line, c->disc);
		c->bad_record = true;
		return;
	}
	if (c->mods->sample)
		mon_sample_add_modrec(c->mods->sample, c->index, line, strlen(line));
}

/* Records each line of @f prefixed, skipping the first @head and last @tail. */
static int record_lines(struct vmon_ctx *c, FILE *f, const char *prefix, int head, int tail)
{
	char *line = NULL, **keep = NULL;
	size_t cap = 0, n = 0;
	int count = 0;

	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		keep = xrealloc(keep, (n + 1) * sizeof(*keep));
		keep[n++] = xasprintf("%s %s", prefix, line);
	}
	for (size_t i = 0; i < n; i++) {
		if ((int)i >= head && (int)(n - i) > tail) {
			h_record(c, keep[i]);
			count++;
		}
		free(keep[i]);
	}
	free(keep);
	free(line);
	return count;
}

static int h_getproc(struct vmon_ctx *c, const char *path, const char *prefix, int head, int tail)
{
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -1;
	n = record_lines(c, f, prefix, head, tail);
	fclose(f);
	return n;
}

static int h_getexec(struct vmon_ctx *c, const char *cmd, const char *prefix)
{
	FILE *f = popen(cmd, "re");
	int n;

	if (!f)
		return -1;
	n = record_lines(c, f, prefix, 0, 0);
	return pclose(f) == 0 ? n : -1;
}

static void h_error(struct vmon_ctx *c, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	mon_say(c->mods->say, c->mods->say_arg, "veles monitor: module %s: %s",
		c->m ? c->m->name : c->file, buf_str(&b));
	buf_release(&b);
	c->failed = true;
}

static double h_interval(const struct vmon_ctx *c)
{
	return c->mods->secs;
}

static char h_separator(const struct vmon_ctx *c)
{
	return c->mods->sep;
}

static const char *h_rate(const struct vmon_ctx *c)
{
	return c->mods->per_interval ? "/int" : "/sec";
}

static int h_per_interval(const struct vmon_ctx *c)
{
	return c->mods->per_interval;
}

static void h_append(struct vmon_text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(t->b, fmt, ap);
	va_end(ap);
}

/* An export being built: "name value" lines (units go to the formats
 * that carry them). */
struct vmon_export {
	struct buf *b;
};

static void h_export_value(struct vmon_export *e, const char *name, const char *units, double v)
{
	char num[32];

	UNUSED(units);
	mon_fmt_fixed(num, v, v == (double)(int64_t)v ? 0 : 3);
	buf_addf(e->b, "%s %s\n", name, num);
}

static void **h_data(struct vmon_ctx *c)
{
	return &c->data;
}

static const struct vmon_helpers helpers = {
	VMON_API_VERSION, h_cvt,       mon_fix, h_getproc,	h_getexec, h_record,	   h_error,
	h_interval,	  h_separator, h_rate,	h_per_interval, h_append,  h_export_value, h_data,
};

/* The installed module directory seen from this veles (bindir/../LIBDIR/
 * veles/monitor), when it exists and is not the configured one: a tree
 * that was moved or staged (meson install --destdir) uses its own. */
static char *moved_module_dir(void)
{
	char *rel = VELES_MODULE_DIR_REL[0] ? self_exe_relative(VELES_MODULE_DIR_REL) : NULL;
	char *real = rel ? realpath(rel, NULL) : NULL;
	char *conf = realpath(VELES_MODULE_DIR, NULL);

	if (real && conf && !strcmp(real, conf)) {
		free(real);
		real = NULL;
	}
	free(rel);
	free(conf);
	return real;
}

/* Where a bare module name is looked up, colon-separated, in this order:
 * $VELES_MODULE_PATH; the build tree's plugins when this veles is the one
 * built there, else the installed directory beside this veles (either way
 * the modules built with it, never older ones installed elsewhere); the
 * installed directory. */
char *mon_module_dirs(void)
{
	const char *env = getenv("VELES_MODULE_PATH");
	char *exe = self_object_path(), *own = NULL, *dirs;
	size_t root = strlen(VELES_BUILD_ROOT);

	if (exe && !strncmp(exe, VELES_BUILD_ROOT, root) && exe[root] == '/')
		own = xstrdup(VELES_BUILD_ROOT "/plugins");
	else
		own = moved_module_dir();
	dirs = xasprintf("%s%s%s%s%s", env ? env : "", env && *env ? ":" : "", own ? own : "",
			 own ? ":" : "", VELES_MODULE_DIR);
	free(exe);
	free(own);
	return dirs;
}

/* The path to dlopen for @name (@n bytes): as given when it has a slash,
 * else the first NAME.so in mon_module_dirs(); NULL and an error if none. */
static char *find_module(const char *name, size_t n)
{
	char *dirs, *path = NULL, *save = NULL;
	const char *ext = n > 3 && !memcmp(name + n - 3, ".so", 3) ? "" : ".so";

	if (memchr(name, '/', n))
		return xstrndup(name, n);
	dirs = mon_module_dirs();
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		path = xasprintf("%s/%.*s%s", d, (int)n, name, ext);
		if (!access(path, R_OK))
			break;
		free(path);
		path = NULL;
	}
	if (!path) {
		free(dirs);
		dirs = mon_module_dirs();
		err_set(ERR_NOTFOUND, "cannot find module %.*s: no %.*s%s in %s", (int)n, name,
			(int)n, name, ext, dirs);
	}
	free(dirs);
	return path;
}

static void drop(struct vmon_ctx *c)
{
	if (c->m && c->m->finish && !c->failed)
		c->m->finish(c);
	if (c->dl)
		dlclose(c->dl);
	free(c->file);
	free(c);
}

/* dlopen + the table's version check; an error for an unusable file. */
static int open_module(struct vmon_ctx *c)
{
	const struct vmon_module *(*entry)(void);

	c->dl = dlopen(c->file, RTLD_NOW | RTLD_LOCAL);
	if (!c->dl)
		return err_set(ERR_INVALID, "cannot load module %s: %s", c->file, dlerror());
	*(void **)&entry = dlsym(c->dl, "veles_monitor_module");
	if (!entry)
		return err_set(ERR_INVALID, "%s is not a veles monitor module", c->file);
	c->m = entry();
	if (!c->m || c->m->api_version != VMON_API_VERSION)
		return err_set(ERR_INVALID, "module %s has API version %u, veles needs %u", c->file,
			       c->m ? c->m->api_version : 0, VMON_API_VERSION);
	if (!c->m->init || !c->m->get_data || !c->m->analyze)
		return err_set(ERR_INVALID, "module %s lacks init, get_data or analyze", c->file);
	return 0;
}

/* The loaded module whose discriminator is @disc, or NULL. */
static const struct vmon_ctx *same_disc(const struct mon_modules *ms, const char *disc)
{
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->v[i]->disc, disc))
			return ms->v[i];
	return NULL;
}

/* Loads one "file,options" item; init failing only unloads it. */
static int load_one(struct mon_modules *ms, const char *item, size_t n)
{
	const char *comma = memchr(item, ',', n);
	size_t fn = comma ? (size_t)(comma - item) : n;
	char *opts = comma ? xstrndup(comma + 1, n - fn - 1) : xstrdup("");
	struct vmon_ctx *c = xcalloc(1, sizeof(*c));
	int rc;

	c->mods = ms;
	c->file = find_module(item, fn);
	rc = c->file ? open_module(c) : ERR_NOTFOUND;
	if (rc == 0 && (c->m->init(c, &helpers, opts, &c->disc) < 0 || c->failed || !c->disc)) {
		mon_say(ms->say, ms->say_arg, "veles monitor: module %s did not start: unloaded",
			c->m->name);
		c->failed = true;
		drop(c);
	} else if (rc == 0 && same_disc(ms, c->disc)) {
		/* Its records could not be told from the other's. */
		rc = err_set(ERR_INVALID,
			     "module %s: discriminator '%s' is already module %s's: not loaded",
			     c->m->name, c->disc, same_disc(ms, c->disc)->m->name);
		drop(c);
	} else if (rc == 0) {
		c->disclen = strlen(c->disc);
		c->index = (unsigned)ms->n;
		ms->v = xrealloc(ms->v, (ms->n + 1) * sizeof(*ms->v));
		ms->v[ms->n++] = c;
	} else {
		drop(c);
	}
	free(opts);
	return rc;
}

int mon_modules_load(struct mon_modules *ms, const char *spec)
{
	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ":");
		int rc = n ? load_one(ms, p, n) : 0;

		if (rc < 0 && ms->skip_unloadable)
			mon_say(ms->say, ms->say_arg, "veles: %s: its records are left out",
				err_msg());
		else if (rc < 0)
			return rc;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

void mon_modules_unload(struct mon_modules *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		drop(ms->v[i]);
	free(ms->v);
	ms->v = NULL;
	ms->n = 0;
}

/* Unloads the modules that called error(), keeping the order of the rest. */
static void sweep(struct mon_modules *ms)
{
	size_t k = 0;

	for (size_t i = 0; i < ms->n; i++) {
		if (ms->v[i]->failed) {
			mon_say(ms->say, ms->say_arg, "veles monitor: module %s unloaded",
				ms->v[i]->m->name);
			drop(ms->v[i]);
		} else {
			ms->v[k++] = ms->v[i];
		}
	}
	ms->n = k;
}

void mon_modules_update_header(struct mon_modules *ms, struct buf *header)
{
	struct vmon_text t = {header};

	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->update_header)
			ms->v[i]->m->update_header(ms->v[i], &t);
	sweep(ms);
}

void mon_modules_get_header(struct mon_modules *ms, const char *header)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->get_header)
			ms->v[i]->m->get_header(ms->v[i], header);
	sweep(ms);
}

void mon_modules_get_data(struct mon_modules *ms, struct mon_sample *s)
{
	ms->sample = s;
	for (size_t i = 0; i < ms->n; i++)
		ms->v[i]->m->get_data(ms->v[i]);
	ms->sample = NULL;
	sweep(ms);
}

/* The module whose discriminator starts @line (then a space or the end). */
static struct vmon_ctx *owner(struct mon_modules *ms, const char *line)
{
	for (size_t i = 0; i < ms->n; i++)
		if (owns(ms->v[i], line))
			return ms->v[i];
	return NULL;
}

void mon_modules_analyze(struct mon_modules *ms, const struct mon_sample *s, double secs)
{
	ms->secs = secs;
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->init_interval)
			ms->v[i]->m->init_interval(ms->v[i]);
	for (size_t i = 0; i < s->nmod; i++) {
		struct vmon_ctx *c = owner(ms, s->mod[i].line);

		if (c)
			c->m->analyze(c, s->mod[i].line);
	}
	sweep(ms);
}

void mon_modules_interval_end(struct mon_modules *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->interval_end)
			ms->v[i]->m->interval_end(ms->v[i]);
	sweep(ms);
}

void mon_modules_brief(struct mon_modules *ms, enum vmon_brief type, struct buf *b)
{
	struct vmon_text t = {b};

	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->print_brief)
			ms->v[i]->m->print_brief(ms->v[i], type, &t);
}

void mon_modules_verbose(struct mon_modules *ms, bool header, struct buf *b)
{
	struct vmon_text t = {b};

	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->print_verbose)
			ms->v[i]->m->print_verbose(ms->v[i], header, &t);
}

void mon_modules_plot(struct mon_modules *ms, enum vmon_plot type, struct buf *b)
{
	struct vmon_text t = {b};

	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->print_plot)
			ms->v[i]->m->print_plot(ms->v[i], type, &t);
}

void mon_modules_export(struct mon_modules *ms, struct buf *b)
{
	struct vmon_export e = {b};

	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i]->m->print_export)
			ms->v[i]->m->print_export(ms->v[i], &e);
}
