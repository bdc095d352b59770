/*
 * Workload generators (generators.workload in config.yml, fields as in
 * Perun's): integer (min_range, max_range, step), string (min_len,
 * max_len, step_len), textfile (min_lines, max_lines, step_lines),
 * external (min, max, step, command) and singleton (value).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "config/config.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"

/* More sizes than this is a typo in a step, not a measurement plan. */
#define GEN_MAX_SIZES 100000

struct gen_kind {
	const char *name;
	enum run_gen_type type;
	const char *fields[3]; /* min, max, step */
};

static const struct gen_kind kinds[] = {
	{"integer", GEN_INTEGER, {"min_range", "max_range", "step"}},
	{"string", GEN_STRING, {"min_len", "max_len", "step_len"}},
	{"textfile", GEN_TEXTFILE, {"min_lines", "max_lines", "step_lines"}},
	{"external", GEN_EXTERNAL, {"min", "max", "step"}},
	{"singleton", GEN_SINGLETON, {NULL, NULL, NULL}},
};

static int gen_number(const struct config *c, const char *base, const char *field, long min,
		      bool required, long *out)
{
	char *key = xasprintf("%s.%s", base, field);
	const char *v = config_get(c, key);
	char *end;
	int ret = 0;

	if (v) {
		errno = 0;
		*out = strtol(v, &end, 10);
		if (errno || end == v || *end || *out < min)
			ret = config_error_at(c, key, "%s wants a whole number >= %ld, not '%s'",
					      field, min, v);
	} else if (required) {
		ret = config_error_at(c, base, "the generator needs %s", field);
	}
	free(key);
	return ret;
}

struct field_check {
	const struct config *c;
	const char *base;
	size_t blen;
	const struct gen_kind *kind;
	int ret;
};

/* Every field of a generator must be one its type reads. */
static void check_field(const char *key, const char *value, void *arg)
{
	struct field_check *f = arg;
	const char *name = key + f->blen + 1;
	bool known;

	UNUSED(value);
	if (f->ret < 0 || strncmp(key, f->base, f->blen) != 0 || key[f->blen] != '.')
		return;
	known = strcmp(name, "id") == 0 || strcmp(name, "type") == 0 ||
		(f->kind->type == GEN_EXTERNAL && strcmp(name, "command") == 0) ||
		(f->kind->type == GEN_SINGLETON && strcmp(name, "value") == 0);
	for (size_t i = 0; i < 3 && f->kind->fields[i]; i++)
		known = known || strcmp(name, f->kind->fields[i]) == 0;
	if (!known)
		f->ret = config_error_at(f->c, key, "unknown key '%s' for a generator of type %s",
					 name, f->kind->name);
}

/*
 * Perun's singleton: one workload, the value as it is (one argument). A
 * whole number is also the size its resources carry, as a literal
 * workload's is.
 */
static int singleton_load(const struct config *c, const char *base, struct run_generator *g)
{
	char *key = xasprintf("%s.value", base), *end;
	const char *v = config_get(c, key);

	free(key);
	if (!v)
		return config_error_at(c, base, "a singleton generator needs a value");
	g->value = xstrdup(v);
	errno = 0;
	g->min = strtol(v, &end, 10);
	g->unsized = !*v || *end || errno || g->min < 0;
	if (g->unsized)
		g->min = 0;
	g->max = g->min;
	return 0;
}

static int gen_load_one(const struct config *c, const char *base, struct run_generator *g)
{
	char *key = xasprintf("%s.type", base);
	const char *type = config_get(c, key);
	const struct gen_kind *k = NULL;
	struct field_check f = {c, base, strlen(base), NULL, 0};
	int ret;

	for (size_t i = 0; type && i < ARRAY_SIZE(kinds); i++)
		if (strcmp(type, kinds[i].name) == 0)
			k = &kinds[i];
	if (!k)
		ret = config_error_at(c, type ? key : base,
				      "a generator's type is integer, string, textfile, "
				      "external or singleton, not '%s'",
				      type ? type : "");
	free(key);
	if (!k)
		return ret;
	f.kind = k;
	config_each(c, check_field, &f);
	if (f.ret < 0)
		return f.ret;
	key = xasprintf("%s.id", base);
	if (!config_get(c, key) || !*config_get(c, key)) {
		free(key);
		return config_error_at(c, base, "the generator needs an id");
	}
	g->id = xstrdup(config_get(c, key));
	free(key);
	g->type = k->type;
	g->step = 1;
	if (k->type == GEN_SINGLETON)
		return singleton_load(c, base, g);
	ret = gen_number(c, base, k->fields[0], 0, true, &g->min);
	if (ret == 0)
		ret = gen_number(c, base, k->fields[1], g->min, true, &g->max);
	if (ret == 0)
		ret = gen_number(c, base, k->fields[2], 1, false, &g->step);
	if (ret == 0 && (g->max - g->min) / g->step >= GEN_MAX_SIZES)
		ret = config_error_at(c, base, "generator '%s' would make more than %d workloads",
				      g->id, GEN_MAX_SIZES);
	if (ret == 0 && k->type == GEN_EXTERNAL) {
		key = xasprintf("%s.command", base);
		if (config_get(c, key) && *config_get(c, key))
			g->command = xstrdup(config_get(c, key));
		else
			ret = config_error_at(c, base, "an external generator needs a command");
		free(key);
	}
	return ret;
}

int run_generators_load(const struct config *c, struct run_generator **out, size_t *n)
{
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (config_get(c, "generators.workload") && *config_get(c, "generators.workload"))
		return config_error_at(c, "generators.workload",
				       "generators.workload must be a list of generators");
	for (size_t i = 0; ret == 0; i++) {
		char *base = xasprintf("generators.workload.%zu", i);

		if (!config_has(c, base)) {
			free(base);
			break;
		}
		*out = xrealloc(*out, (i + 1) * sizeof(**out));
		memset(&(*out)[i], 0, sizeof(**out));
		*n = i + 1;
		ret = gen_load_one(c, base, &(*out)[i]);
		for (size_t j = 0; ret == 0 && j < i; j++)
			if (strcmp((*out)[j].id, (*out)[i].id) == 0)
				ret = config_error_at(c, base, "two generators are called '%s'",
						      (*out)[i].id);
		free(base);
	}
	if (ret < 0) {
		run_generators_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void run_generators_free(struct run_generator *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].id);
		free(g[i].command);
		free(g[i].value);
	}
	free(g);
}

size_t run_generator_sizes(const struct run_generator *g, long **sizes)
{
	size_t n = (size_t)((g->max - g->min) / g->step) + 1;

	*sizes = xcalloc(n, sizeof(**sizes));
	for (size_t i = 0; i < n; i++)
		(*sizes)[i] = g->min + (long)i * g->step;
	return n;
}

/* @size lines of text, each a numbered line of words, so a line counter, a
 * sorter or a parser all have something to chew. */
static int make_textfile(long size, const char *tmpdir, char **out)
{
	char *path = xasprintf("%s/lines-%ld.txt", tmpdir, size);
	struct buf b = BUF_INIT;
	int ret;

	for (long i = 1; i <= size; i++)
		buf_addf(&b, "line %ld of %ld: the quick brown fox jumps over the lazy dog\n", i,
			 size);
	ret = file_write_atomic(path, b.data ? b.data : "", b.len);
	buf_release(&b);
	if (ret < 0) {
		free(path);
		return ret;
	}
	*out = path;
	return 0;
}

/* Keeps what the command prints, up to a bound: its first line is used. */
static void keep_output(void *arg, int stream, const char *data, size_t len)
{
	struct buf *b = arg;

	UNUSED(stream);
	if (b->len < 4096 && !memchr(b->data ? b->data : "", '\n', b->len))
		buf_add(b, data, len);
}

/* The external command's first line of output, the size in its environment
 * (its own: ours stays as it is). */
static int run_external(const struct run_generator *g, long size, const char *tmpdir,
			const char *cwd, char **out)
{
	char *argv[] = {"/bin/sh", "-c", g->command, NULL};
	char *size_var = xasprintf("VELES_WORKLOAD_SIZE=%ld", size);
	char *dir_var = xasprintf("VELES_WORKLOAD_DIR=%s", tmpdir);
	char *env[] = {size_var, dir_var, NULL};
	struct buf line = BUF_INIT;
	struct spawn_opts o = {.output = SPAWN_INHERIT,
			       .sink = keep_output,
			       .sink_arg = &line,
			       .sink_streams = SPAWN_STDOUT,
			       .sink_only = true,
			       .cwd = cwd,
			       .env = env};
	struct spawn_result r;
	int ret = spawn_run(argv, &o, &r);
	size_t len;

	free(size_var);
	free(dir_var);
	if (ret == 0 && (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0))
		ret = err_set(ERR_CHILD, "generator '%s': its command failed for size %ld", g->id,
			      size);
	len = strcspn(buf_str(&line), "\n");
	if (ret == 0 && !len)
		ret = err_set(ERR_CHILD,
			      "generator '%s': its command printed no workload for size %ld", g->id,
			      size);
	if (ret == 0)
		*out = xstrndup(buf_str(&line), len);
	buf_release(&line);
	return ret;
}

int run_generator_workload(const struct run_generator *g, long size, const char *tmpdir,
			   const char *cwd, char **out)
{
	switch (g->type) {
	case GEN_INTEGER:
		*out = xasprintf("%ld", size);
		return 0;
	case GEN_STRING:
		*out = xmalloc((size_t)size + 1);
		for (long i = 0; i < size; i++)
			(*out)[i] = (char)('a' + i % 26);
		(*out)[size] = '\0';
		return 0;
	case GEN_TEXTFILE:
		return make_textfile(size, tmpdir, out);
	case GEN_EXTERNAL:
		return run_external(g, size, tmpdir, cwd, out);
	case GEN_SINGLETON:
		*out = xstrdup(g->value);
		return 0;
	}
	return err_set(ERR_INVALID, "generator '%s': unknown type", g->id);
}
