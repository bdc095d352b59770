/*
 * The output directory: corpus/ (every kept input, id-NNNNNN), worst/ (the
 * costliest inputs, 1 the costliest), crashes/ and hangs/ (inputs that
 * killed the program or ran past the timeout) and the state file, which is
 * what a later run needs to continue: the command, the generator, the
 * counts, each corpus entry's history and the cost-by-length curve. The
 * state file is text, one record a line, strings percent-encoded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/fuzz_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#define STATE_MAGIC "veles-fuzz-state 1"

void fz_state_paths(struct fz_session *s)
{
	s->corpus_dir = xasprintf("%s/corpus", s->out);
	s->worst_dir = xasprintf("%s/worst", s->out);
	s->crash_dir = xasprintf("%s/crashes", s->out);
	s->hang_dir = xasprintf("%s/hangs", s->out);
	s->state_path = xasprintf("%s/state", s->out);
}

int fz_state_open(struct fz_session *s)
{
	const char *dirs[4];
	char *lock;
	int ret;

	dirs[0] = s->corpus_dir, dirs[1] = s->worst_dir, dirs[2] = s->crash_dir;
	dirs[3] = s->hang_dir;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		ret = mkdir_p(dirs[i]);
		if (ret < 0)
			return ret;
	}
	lock = xasprintf("%s/.lock", s->out);
	s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lock);
	if (s->lock_fd < 0)
		return err_set(ERR_IO, "cannot write in %s: %s", s->out, strerror(errno));
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return err_set(ERR_CONFLICT, "fuzz: %s is in use by another veles fuzz", s->out);
	return 0;
}

void fz_state_close(struct fz_session *s)
{
	if (s->lock_fd > 0)
		close(s->lock_fd);
	s->lock_fd = -1;
	free(s->corpus_dir);
	free(s->worst_dir);
	free(s->crash_dir);
	free(s->hang_dir);
	free(s->state_path);
	free(s->saved_hash);
}

/* ---- strings in the state file ---- */

static void add_pct(struct buf *b, const char *s)
{
	if (!s || !*s) {
		buf_addc(b, '-');
		return;
	}
	/* "-" alone stands for no string. */
	if (strcmp(s, "-") == 0) {
		buf_adds(b, "%2D");
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c >= 0x7f || c == '%')
			buf_addf(b, "%%%02X", c);
		else
			buf_addc(b, (char)c);
	}
}

/* Decodes in place; NULL for "-". */
static char *un_pct(char *s)
{
	char *r = s, *w = s;

	if (strcmp(s, "-") == 0)
		return NULL;
	while (*r) {
		unsigned v;

		if (r[0] == '%' && r[1] && r[2] && sscanf(r + 1, "%2x", &v) == 1) {
			*w++ = (char)v;
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

/* ---- writing ---- */

static char *entry_path(const struct fz_session *s, size_t id)
{
	return xasprintf("%s/id-%06zu", s->corpus_dir, id);
}

static int save_files(struct fz_session *s)
{
	for (size_t i = 0; i < s->n; i++) {
		char *p;
		int ret;

		if (s->e[i].saved)
			continue;
		p = entry_path(s, i);
		ret = file_write_atomic(p, s->e[i].data, s->e[i].len);
		free(p);
		if (ret < 0)
			return ret;
		s->e[i].saved = true;
	}
	for (size_t i = 0; i < FZ_NWORST; i++) {
		char *p = xasprintf("%s/%zu", s->worst_dir, i + 1);
		int ret = 0;

		if (i < s->nworst)
			ret = file_write_atomic(p, s->worst[i].data, s->worst[i].len);
		else if (unlink(p) < 0 && errno != ENOENT)
			ret = err_set(ERR_IO, "cannot remove %s: %s", p, strerror(errno));
		free(p);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void write_head(const struct fz_session *s, struct buf *b)
{
	buf_addf(b, "%s\n", STATE_MAGIC);
	for (size_t i = 0; s->o->argv[i]; i++) {
		buf_adds(b, "arg ");
		add_pct(b, s->o->argv[i]);
		buf_addc(b, '\n');
	}
	buf_addf(b, "metric %s\nseed %" PRIu64 "\nmax-size %zu\n", fz_metric_name(s->ex.metric),
		 s->seed, s->max_size);
	buf_addf(b, "rng %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n",
		 s->rng.s[0], s->rng.s[1], s->rng.s[2], s->rng.s[3]);
	buf_addf(b, "runs %" PRIu64 "\ntime %.3f\ncrashes %" PRIu64 "\nhangs %" PRIu64 "\n",
		 s->runs, s->time0 + (fz_now() - s->t_start), s->crashes, s->hangs);
	for (size_t i = 0; i < s->nrules; i++)
		if (s->tries[i])
			buf_addf(b, "rule %s %" PRIu64 " %" PRIu64 "\n", s->rules[i].name,
				 s->hits[i], s->tries[i]);
}

int fz_state_save(struct fz_session *s)
{
	struct buf b = BUF_INIT;
	int ret = save_files(s);

	if (ret < 0)
		return ret;
	write_head(s, &b);
	for (size_t i = 0; i < s->n; i++) {
		const struct fz_entry *e = &s->e[i];

		buf_addf(&b, "entry %zu %s ", i, e->seed ? "seed" : "mutant");
		if (e->parent == FZ_NO_ENTRY)
			buf_adds(&b, "-");
		else
			buf_addf(&b, "%" PRIu32, e->parent);
		buf_addf(&b, " %" PRIu64 " %" PRIu32 " ", e->found_run, e->depth);
		add_pct(&b, e->rules);
		buf_addc(&b, ' ');
		add_pct(&b, e->origin);
		buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < s->nworst; i++) {
		buf_addf(&b, "worst %zu %.17g %" PRIu64 " ", i + 1, s->worst[i].cost,
			 s->worst[i].found_run);
		add_pct(&b, s->worst[i].rules);
		buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < FZ_ENV_BINS; i++)
		if (s->env[i].set)
			buf_addf(&b, "point %zu %zu %.17g\n", i, s->env[i].len, s->env[i].cost);
	ret = file_write_atomic(s->state_path, b.data, b.len);
	buf_release(&b);
	return ret;
}

/* ---- crashes and hangs ---- */

int fz_state_keep(struct fz_session *s, bool crash, const uint8_t *data, size_t len, int status)
{
	uint64_t h = fz_hash(data, len);
	size_t *count = crash ? &s->ncrash_files : &s->nhang_files;
	char *p;
	int ret;

	if (*count >= FZ_SAVED_MAX)
		return 0;
	for (size_t i = 0; i < s->nsaved_hash; i++)
		if (s->saved_hash[i] == h)
			return 0;
	if (crash)
		p = xasprintf("%s/run-%06" PRIu64 "-%s%s", s->crash_dir, s->runs,
			      WIFSIGNALED(status) ? "SIG" : "",
			      WIFSIGNALED(status) && sigabbrev_np(WTERMSIG(status))
				      ? sigabbrev_np(WTERMSIG(status))
				      : "exit");
	else
		p = xasprintf("%s/run-%06" PRIu64, s->hang_dir, s->runs);
	ret = file_write_atomic(p, data, len);
	free(p);
	if (ret < 0)
		return ret;
	s->saved_hash = xrealloc(s->saved_hash, (s->nsaved_hash + 1) * sizeof(*s->saved_hash));
	s->saved_hash[s->nsaved_hash++] = h;
	(*count)++;
	return 0;
}

/* The files already in crashes/ or hangs/, so a resumed run adds no copy. */
static void scan_saved(struct fz_session *s, const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct buf b = BUF_INIT;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (file_read_all(p, &b) == 0) {
			s->saved_hash = xrealloc(s->saved_hash,
						 (s->nsaved_hash + 1) * sizeof(*s->saved_hash));
			s->saved_hash[s->nsaved_hash++] = fz_hash((uint8_t *)b.data, b.len);
			(*count)++;
		}
		err_clear();
		buf_release(&b);
		free(p);
	}
	closedir(d);
}

/* ---- reading ---- */

static int damaged(const struct fz_session *s, size_t lineno, const char *what)
{
	return err_set(ERR_PARSE,
		       "fuzz: %s:%zu: %s; the saved session is damaged (use another -o, or "
		       "remove %s to start afresh)",
		       s->state_path, lineno, what, s->out);
}

static int check_command(struct fz_session *s, char **args, size_t nargs)
{
	size_t n = 0;

	while (s->o->argv[n])
		n++;
	for (size_t i = 0; i < n || i < nargs; i++)
		if (i >= n || i >= nargs || strcmp(args[i], s->o->argv[i]) != 0)
			return err_set(ERR_INVALID,
				       "fuzz: %s holds a session of another command (%s ...); use "
				       "another -o",
				       s->out, nargs ? args[0] : "?");
	return 0;
}

static int load_entry(struct fz_session *s, char **f, size_t nf, size_t lineno)
{
	struct buf b = BUF_INIT;
	char *p, *end;
	uint32_t id;
	int ret;

	if (nf != 8 || strtoul(f[1], &end, 10) != s->n || *end)
		return damaged(s, lineno, "a corpus entry out of order");
	p = entry_path(s, s->n);
	ret = file_read_all(p, &b);
	free(p);
	if (ret < 0)
		return damaged(s, lineno, "a corpus file is missing");
	id = fz_corpus_add(s, (uint8_t *)b.data, b.len, 0,
			   strcmp(f[3], "-") ? (uint32_t)strtoul(f[3], NULL, 10) : FZ_NO_ENTRY,
			   un_pct(f[6]));
	buf_release(&b);
	if (s->e[id].parent != FZ_NO_ENTRY && s->e[id].parent >= id)
		return damaged(s, lineno, "an entry's parent comes after it");
	s->e[id].seed = strcmp(f[2], "seed") == 0;
	s->e[id].found_run = strtoull(f[4], NULL, 10);
	s->e[id].depth = (uint32_t)strtoul(f[5], NULL, 10);
	p = un_pct(f[7]);
	s->e[id].origin = p ? xstrdup(p) : NULL;
	s->e[id].saved = true;
	return 0;
}

static int load_worst(struct fz_session *s, char **f, size_t nf, size_t lineno)
{
	struct buf b = BUF_INIT;
	struct fz_kept *k;
	char *p;
	int ret;

	if (nf != 5 || s->nworst >= FZ_NWORST)
		return damaged(s, lineno, "a bad worst record");
	p = xasprintf("%s/%s", s->worst_dir, f[1]);
	ret = file_read_all(p, &b);
	free(p);
	if (ret < 0)
		return damaged(s, lineno, "a file of worst/ is missing");
	/* Saved costliest first, so they load in order. */
	p = un_pct(f[4]);
	k = &s->worst[s->nworst++];
	k->len = b.len;
	k->data = (uint8_t *)buf_detach(&b, NULL);
	k->cost = strtod(f[2], NULL);
	k->found_run = strtoull(f[3], NULL, 10);
	k->rules = p ? xstrdup(p) : NULL;
	return 0;
}

static void load_rule(struct fz_session *s, char **f, size_t nf)
{
	int k = nf == 4 ? fz_rule_find(f[1]) : -1;

	/* A rule this version no longer has is forgotten. */
	if (k < 0)
		return;
	s->hits[k] = strtoull(f[2], NULL, 10);
	s->tries[k] = strtoull(f[3], NULL, 10);
}

static int load_line(struct fz_session *s, char **f, size_t nf, size_t lineno, struct buf *args,
		     size_t *nargs)
{
	const char *k = f[0];

	if (strcmp(k, "arg") == 0 && nf == 2) {
		char *a = un_pct(f[1]);

		buf_add(args, a ? a : "-", strlen(a ? a : "-") + 1);
		(*nargs)++;
	} else if (strcmp(k, "metric") == 0 && nf == 2) {
		s->metric_was = xstrdup(f[1]);
	} else if (strcmp(k, "max-size") == 0 && nf == 2) {
		s->saved_max_size = strtoul(f[1], NULL, 10);
	} else if (strcmp(k, "seed") == 0 && nf == 2) {
		s->seed = strtoull(f[1], NULL, 10);
	} else if (strcmp(k, "rng") == 0 && nf == 5) {
		for (int i = 0; i < 4; i++)
			s->rng.s[i] = strtoull(f[i + 1], NULL, 16);
	} else if (strcmp(k, "runs") == 0 && nf == 2) {
		s->runs = strtoull(f[1], NULL, 10);
	} else if (strcmp(k, "time") == 0 && nf == 2) {
		s->time0 = strtod(f[1], NULL);
	} else if (strcmp(k, "crashes") == 0 && nf == 2) {
		s->crashes = strtoull(f[1], NULL, 10);
	} else if (strcmp(k, "hangs") == 0 && nf == 2) {
		s->hangs = strtoull(f[1], NULL, 10);
	} else if (strcmp(k, "rule") == 0) {
		load_rule(s, f, nf);
	} else if (strcmp(k, "entry") == 0) {
		return load_entry(s, f, nf, lineno);
	} else if (strcmp(k, "worst") == 0) {
		return load_worst(s, f, nf, lineno);
	} else if (strcmp(k, "point") == 0 && nf == 4) {
		size_t bin = strtoul(f[1], NULL, 10);

		if (bin < FZ_ENV_BINS)
			s->env[bin] = (struct fz_point){strtoul(f[2], NULL, 10), strtod(f[3], NULL),
							true};
	} else {
		return damaged(s, lineno, "an unknown record");
	}
	return 0;
}

/* The arguments collected from "arg" lines, as an array into @args. */
static char **arg_list(struct buf *args, size_t n)
{
	char **v = xcalloc(n + 1, sizeof(*v));
	char *p = args->data;

	for (size_t i = 0; i < n; i++) {
		v[i] = p;
		p += strlen(p) + 1;
	}
	return v;
}

static int load_text(struct fz_session *s, char *text)
{
	struct buf args = BUF_INIT;
	size_t lineno = 1, nargs = 0;
	char *save = NULL, **argv;
	int ret = 0;

	if (strncmp(text, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1) != 0)
		return damaged(s, 1, "not a veles fuzz state file");
	for (char *line = strtok_r(text + strlen(STATE_MAGIC) + 1, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[8], *fs = NULL;
		size_t nf = 0;

		lineno++;
		for (char *w = strtok_r(line, " ", &fs); w; w = strtok_r(NULL, " ", &fs))
			if (nf < ARRAY_SIZE(f))
				f[nf++] = w;
			else
				ret = damaged(s, lineno, "a record with too many fields");
		if (nf && !ret)
			ret = load_line(s, f, nf, lineno, &args, &nargs);
	}
	argv = arg_list(&args, nargs);
	if (ret == 0)
		ret = check_command(s, argv, nargs);
	free(argv);
	buf_release(&args);
	return ret;
}

int fz_state_load(struct fz_session *s)
{
	struct buf b = BUF_INIT;
	int ret = file_read_all(s->state_path, &b);

	if (ret == 0)
		ret = load_text(s, b.data ? b.data : (char *)"");
	buf_release(&b);
	if (ret == 0) {
		scan_saved(s, s->crash_dir, &s->ncrash_files);
		scan_saved(s, s->hang_dir, &s->nhang_files);
		s->resumed = true;
	}
	return ret;
}
