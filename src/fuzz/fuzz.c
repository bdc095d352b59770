/* The fuzzing session: seeds, calibration, the loop (fuzz.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fuzz_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* Seeds larger than this are more likely a mistake than an input. */
#define SEED_MAX (64u << 20)
/* Mutants made from each parent drawn. */
#define ENERGY 16
/* Past this many bytes of corpus only new edges and new maxima get in. */
#define CORPUS_BYTES_MAX (256u << 20)
#define PROGRESS_EVERY 0.25
#define CHECKPOINT_EVERY 30.0

double fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- seeds ---- */

static bool in_corpus(const struct fz_session *s, const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].len == len && (len == 0 || memcmp(s->e[i].data, data, len) == 0))
			return true;
	return false;
}

static int add_seed_file(struct fz_session *s, const char *path)
{
	struct buf b = BUF_INIT;
	struct stat st;
	uint32_t id;
	int ret;

	if (stat(path, &st) == 0 && st.st_size > (off_t)SEED_MAX)
		return err_set(ERR_INVALID, "fuzz: seed %s is larger than %u MiB", path,
			       SEED_MAX >> 20);
	ret = file_read_all(path, &b);
	if (ret < 0)
		return ret;
	/* The same input twice is one seed; a resumed run has them already. */
	if (!in_corpus(s, (uint8_t *)b.data, b.len)) {
		id = fz_corpus_add(s, (uint8_t *)b.data, b.len, 0, FZ_NO_ENTRY, NULL);
		s->e[id].origin = xstrdup(path);
	}
	buf_release(&b);
	return 0;
}

static int add_seed_path(struct fz_session *s, const char *path)
{
	struct dirent **names;
	int n, ret = 0;

	if (!path_is_dir(path)) {
		if (!path_exists(path))
			return err_set(ERR_NOTFOUND, "fuzz: no seed file or directory %s", path);
		return add_seed_file(s, path);
	}
	/* Sorted, so the same directory gives the same seeds in the same order. */
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return err_set(ERR_IO, "fuzz: cannot read %s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", path, names[i]->d_name);

		if (ret == 0 && names[i]->d_name[0] != '.')
			ret = add_seed_path(s, p);
		free(p);
		free(names[i]);
	}
	free(names);
	return ret;
}

static size_t largest_seed(const struct fz_session *s)
{
	size_t max = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].seed && s->e[i].len > max)
			max = s->e[i].len;
	return max;
}

static void choose_max_size(struct fz_session *s)
{
	const struct fz_options *o = s->o;
	size_t largest = largest_seed(s);

	if (o->max_size)
		s->max_size = o->max_size;
	else if (o->max_size_ratio > 0)
		s->max_size = (size_t)((double)largest * o->max_size_ratio);
	else if (o->max_size_increase_set)
		s->max_size = largest + o->max_size_increase;
	else if (s->saved_max_size)
		s->max_size = s->saved_max_size;
	else
		/* Room to grow: the cost's growth with length is what we look for. */
		s->max_size = largest * 4 > largest + 1024 ? largest * 4 : largest + 1024;
	if (s->max_size < largest)
		s->max_size = largest;
	if (s->max_size < 1)
		s->max_size = 1;
}

static void choose_rules(struct fz_session *s)
{
	bool text = true;

	for (size_t i = 0; i < s->n && text; i++)
		if (s->e[i].seed)
			text = fz_is_text(s->e[i].data, s->e[i].len);
	s->text = text;
	s->usable = xcalloc(s->nrules, sizeof(*s->usable));
	for (size_t i = 0; i < s->nrules; i++)
		s->usable[i] = s->rules[i].group == FZ_BINARY ||
			       (s->rules[i].group == FZ_TEXT && text) ||
			       (s->rules[i].group == FZ_DICT && s->dict.n);
}

/* ---- runs ---- */

static int run_one(struct fz_session *s, const uint8_t *data, size_t len, struct fz_result *r,
		   struct fz_cover_news *news)
{
	int ret = fz_exec_run(&s->ex, data, len, r);

	memset(news, 0, sizeof(*news));
	if (ret < 0)
		return ret;
	/* A run cut short by Ctrl-C measured nothing. */
	if (r->outcome == FZ_STOPPED)
		return 0;
	s->runs++;
	if (s->cov_open)
		fz_cover_check(&s->cov, news);
	if (s->ex.metric == FZ_METRIC_HITS)
		r->cost = (double)news->hits;
	return 0;
}

static int keep_failure(struct fz_session *s, const struct fz_result *r, const uint8_t *data,
			size_t len)
{
	if (r->outcome == FZ_CRASH)
		s->crashes++;
	else
		s->hangs++;
	return fz_state_keep(s, r->outcome == FZ_CRASH, data, len, r->status);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Runs entry @id FZ_CALIB_RUNS times: its cost is the median, *@spread
 * the median absolute deviation over the median. False when it crashed or
 * hung (kept as such).
 */
static int calibrate_one(struct fz_session *s, uint32_t id, double *wall, double *spread,
			 bool *alive)
{
	double cost[FZ_CALIB_RUNS], dev[FZ_CALIB_RUNS], walls[FZ_CALIB_RUNS];
	struct fz_entry *e = &s->e[id];
	struct fz_cover_news news;
	struct fz_result r;
	int ret;

	*alive = false;
	for (int k = 0; k < FZ_CALIB_RUNS; k++) {
		ret = run_one(s, e->data, e->len, &r, &news);
		if (ret < 0)
			return ret;
		if (r.outcome == FZ_STOPPED)
			return err_set(ERR_INTERRUPTED,
				       "fuzz: interrupted while measuring the seeds");
		if (r.outcome != FZ_OK)
			return keep_failure(s, &r, e->data, e->len);
		if (k == 0 && s->cov.attached && s->o->coverage)
			s->use_cov = true;
		if (k == 0 && s->use_cov) {
			fz_cover_commit(&s->cov, id, s->ntop);
			e->hits = news.hits;
		}
		cost[k] = r.cost;
		walls[k] = r.wall;
	}
	e->cost = median(cost, FZ_CALIB_RUNS);
	*wall = median(walls, FZ_CALIB_RUNS);
	for (int k = 0; k < FZ_CALIB_RUNS; k++)
		dev[k] = fabs(cost[k] - e->cost);
	*spread = e->cost > 0 ? median(dev, FZ_CALIB_RUNS) / e->cost : 0;
	*alive = true;
	fz_note_cost(s, e->data, e->len, e->cost, NULL);
	return 0;
}

/* Drops the seeds that crashed or hung: nothing can be learnt from them. */
static void drop_dead(struct fz_session *s, const bool *alive)
{
	uint32_t *map = xcalloc(s->n + 1, sizeof(*map));
	size_t w = 0, n = s->n;

	for (size_t i = 0; i < n; i++) {
		map[i] = alive[i] ? (uint32_t)w : FZ_NO_ENTRY;
		if (alive[i]) {
			s->e[w] = s->e[i];
			s->ntop[w++] = s->ntop[i];
			continue;
		}
		free(s->e[i].data);
		free(s->e[i].rules);
		free(s->e[i].origin);
	}
	s->n = w;
	s->norder = 0;
	if (s->cov_open && w < n)
		fz_cover_remap(&s->cov, map, n);
	free(map);
}

static int calibrate(struct fz_session *s, struct fz_report *rep)
{
	double wall_max = 0, spread_max = 0;
	bool *alive = xcalloc(s->n + 1, sizeof(*alive));
	size_t nalive = 0;
	int ret = 0;

	/* The seeds' own runs get a generous timeout: they set the real one. */
	s->ex.timeout = s->o->timeout > 0 ? s->o->timeout : 10.0;
	for (size_t i = 0; i < s->n && ret == 0; i++) {
		double wall = 0, spread = 0;

		if (!s->e[i].seed) {
			alive[i] = true;
			continue;
		}
		ret = calibrate_one(s, (uint32_t)i, &wall, &spread, &alive[i]);
		if (!alive[i])
			continue;
		nalive++;
		if (s->e[i].cost > s->base)
			s->base = s->e[i].cost;
		if (wall > wall_max)
			wall_max = wall;
		if (spread > spread_max)
			spread_max = spread;
	}
	if (ret == 0 && nalive == 0)
		ret = err_set(ERR_INVALID,
			      "fuzz: every seed crashes or runs past the timeout (%.3g s): see %s "
			      "and %s",
			      s->ex.timeout, s->crash_dir, s->hang_dir);
	rep->dropped_seeds = 0;
	for (size_t i = 0; ret == 0 && i < s->n; i++)
		rep->dropped_seeds += !alive[i];
	if (ret == 0 && !s->resumed)
		drop_dead(s, alive);
	free(alive);
	if (ret < 0)
		return ret;
	if (s->use_cov)
		fz_cover_mark_base(&s->cov);
	/* Three deviations of the noisiest seed: a mutant must beat its
	 * parent by more than the noise to count as costlier. */
	s->margin = 3 * spread_max;
	if (s->margin < (fz_metric_is_count(s->ex.metric) ? 0.005 : 0.05))
		s->margin = fz_metric_is_count(s->ex.metric) ? 0.005 : 0.05;
	if (s->margin > 0.5)
		s->margin = 0.5;
	s->timeout = s->o->timeout > 0 ? s->o->timeout : fmax(1.0, 50 * wall_max);
	s->ex.timeout = s->timeout;
	return 0;
}

/* A resumed corpus is run once more: the coverage maps are rebuilt and
 * the costs measured on this machine as it is now. */
static int rerun_corpus(struct fz_session *s)
{
	struct fz_cover_news news;
	struct fz_result r;
	int ret;

	for (size_t i = 0; i < s->n; i++) {
		struct fz_entry *e = &s->e[i];

		if (e->seed)
			continue;
		ret = run_one(s, e->data, e->len, &r, &news);
		if (ret < 0)
			return ret;
		if (r.outcome == FZ_STOPPED)
			return err_set(ERR_INTERRUPTED,
				       "fuzz: interrupted while the corpus was run "
				       "again");
		e->cost = r.outcome == FZ_OK ? r.cost : 0;
		e->hits = r.outcome == FZ_OK ? news.hits : 0;
		if (r.outcome == FZ_OK && s->use_cov)
			fz_cover_commit(&s->cov, (uint32_t)i, s->ntop);
		if (r.outcome == FZ_OK)
			fz_note_cost(s, e->data, e->len, e->cost, e->rules);
	}
	s->norder = 0;
	return 0;
}

/* ---- the loop ---- */

/*
 * A rule's weight, as Perun's probabilistic strategy gives it: its share of
 * the rules of kept mutants, but never less than 0.1. With some thirty
 * rules the floor is three times a fair share, so a rule that was lucky
 * early cannot crowd out the others.
 */
static double rule_weight(const struct fz_session *s, size_t k, uint64_t hits)
{
	if (!s->usable[k])
		return 0;
	return hits ? fmax(0.1, (double)s->hits[k] / (double)hits) : 1;
}

/* A rule drawn by the weights above: the rules that made kept mutants are
 * drawn more often. */
static size_t choose_rule(struct fz_session *s)
{
	double total = 0, draw;
	uint64_t hits = 0;
	size_t last = 0;

	for (size_t i = 0; i < s->nrules; i++)
		if (s->usable[i]) {
			hits += s->hits[i];
			last = i;
		}
	for (size_t i = 0; i < s->nrules; i++)
		total += rule_weight(s, i, hits);
	draw = fz_rng_unit(&s->rng) * total;
	for (size_t i = 0; i < s->nrules; i++) {
		double w = rule_weight(s, i, hits);

		if (w > 0 && draw < w)
			return i;
		draw -= w;
	}
	return last;
}

/* A mutant of @parent in @work: 1, 2, 4 or 8 rules stacked (AFL's havoc).
 * @applied gets the rules used; false when the mutant equals the parent. */
static bool mutate(struct fz_session *s, uint32_t parent, struct fz_input *work, bool *applied,
		   struct buf *names)
{
	const struct fz_entry *p = &s->e[parent];
	uint32_t donor = (uint32_t)fz_rng_below(&s->rng, s->n);
	struct fz_mut m = {
		.rng = &s->rng,
		.max = s->max_size,
		.dict = s->dict.n ? &s->dict : NULL,
		.donor = s->e[donor].data,
		.donor_len = s->e[donor].len,
	};
	size_t depth = (size_t)1 << fz_rng_below(&s->rng, 4);

	fz_input_set(work, p->data, p->len);
	memset(applied, 0, s->nrules * sizeof(*applied));
	buf_reset(names);
	for (size_t i = 0; i < depth; i++) {
		size_t k = choose_rule(s);

		if (!s->rules[k].fn(&m, work))
			continue;
		s->tries[k]++;
		applied[k] = true;
		if (names->len)
			buf_addc(names, ',');
		buf_adds(names, s->rules[k].name);
	}
	return work->len != p->len || memcmp(work->data, p->data, p->len) != 0;
}

static bool corpus_full(const struct fz_session *s)
{
	size_t bytes = 0;

	for (size_t i = 0; i < s->n; i++)
		bytes += s->e[i].len;
	return bytes > CORPUS_BYTES_MAX;
}

/* Keeps a mutant that brought something new; @applied rules get the credit. */
static void consider(struct fz_session *s, uint32_t parent, const struct fz_input *work,
		     double cost, const struct fz_cover_news *news, const bool *applied,
		     const char *names)
{
	double pc = s->e[parent].cost;
	bool costlier = cost > pc * (1 + s->margin) && cost > 0;
	bool new_code = news->new_edges || news->new_classes;
	uint32_t id;

	if (!costlier && !new_code && !news->new_max)
		return;
	if (!news->new_edges && !news->new_max && corpus_full(s))
		return;
	id = fz_corpus_add(s, work->data, work->len, cost, parent, names);
	s->e[id].hits = news->hits;
	if (s->use_cov)
		fz_cover_commit(&s->cov, id, s->ntop);
	for (size_t k = 0; k < s->nrules; k++)
		s->hits[k] += applied[k];
}

static bool should_stop(const struct fz_session *s)
{
	const struct fz_options *o = s->o;

	if (o->stop && *o->stop)
		return true;
	if (o->time_limit > 0 && fz_now() - s->t_start >= o->time_limit)
		return true;
	return o->run_limit && s->runs - s->runs0 >= o->run_limit;
}

static void progress(struct fz_session *s, const char *phase, bool force)
{
	struct fz_progress p;
	double t = fz_now();

	if (!s->o->progress || (!force && t - s->last_progress < PROGRESS_EVERY))
		return;
	s->last_progress = t;
	memset(&p, 0, sizeof(p));
	p.runs = s->runs;
	p.session_runs = s->runs - s->runs0;
	p.elapsed = t - s->t_start;
	p.rate = p.elapsed > 0 ? (double)p.session_runs / p.elapsed : 0;
	p.corpus = s->n;
	p.worst_ratio = s->nworst && s->base > 0 ? s->worst[0].cost / s->base : 0;
	p.crashes = s->crashes;
	p.hangs = s->hangs;
	p.phase = phase;
	p.metric = s->ex.metric;
	p.metric_why = s->ex.why;
	p.coverage = s->use_cov;
	p.edges_hit = s->use_cov ? s->cov.edges_hit : 0;
	p.seed = s->seed;
	p.timeout = s->timeout;
	p.max_size = s->max_size;
	p.base_cost = s->base;
	p.resumed = s->resumed;
	s->o->progress(&p, s->o->progress_arg);
}

static int fuzz_loop(struct fz_session *s)
{
	struct fz_input work;
	struct buf names = BUF_INIT;
	bool *applied = xcalloc(s->nrules, sizeof(*applied));
	int ret = 0;

	fz_input_init(&work, NULL, 0, s->max_size);
	while (ret == 0 && !should_stop(s)) {
		/* Without feedback every mutant comes from a seed: the baseline. */
		uint32_t parent =
			s->o->feedback ? fz_corpus_pick(s) : (uint32_t)fz_rng_below(&s->rng, s->n);

		for (int k = 0; k < ENERGY && ret == 0 && !should_stop(s); k++) {
			struct fz_cover_news news;
			struct fz_result r;

			if (!mutate(s, parent, &work, applied, &names))
				continue;
			ret = run_one(s, work.data, work.len, &r, &news);
			if (ret == 0 && r.outcome == FZ_STOPPED)
				break;
			if (ret == 0 && r.outcome != FZ_OK)
				ret = keep_failure(s, &r, work.data, work.len);
			else if (ret == 0) {
				fz_note_cost(s, work.data, work.len, r.cost, names.data);
				if (s->o->feedback)
					consider(s, parent, &work, r.cost, &news, applied,
						 names.data);
			}
			progress(s, "fuzzing", false);
			if (ret == 0 && fz_now() - s->last_checkpoint >= CHECKPOINT_EVERY) {
				s->last_checkpoint = fz_now();
				ret = fz_state_save(s);
			}
			if (!s->o->feedback)
				break;
		}
	}
	fz_input_release(&work);
	buf_release(&names);
	free(applied);
	return ret;
}

/* ---- the session ---- */

static uint64_t fresh_seed(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
	return v;
}

/* The input file's name keeps the first seed's extension: some programs
 * choose their parser by it. */
/*
 * The file is in a directory of its own in /dev/shm where there is one: a
 * memory file system spares each run a disk file system's bookkeeping.
 */
static char *input_name(struct fz_session *s)
{
	const char *origin = s->n && s->e[0].origin ? s->e[0].origin : "";
	const char *base = strrchr(origin, '/'), *dot, *ext;
	char shm[] = "/dev/shm/veles-fuzzinput-XXXXXX";

	base = base ? base + 1 : origin;
	dot = strrchr(base, '.');
	ext = dot && dot != base && strlen(dot) <= 16 ? dot : "";
	if (path_is_dir("/dev/shm") && mkdtemp(shm)) {
		s->input_dir = xstrdup(shm);
		return xasprintf("%s/input%s", shm, ext);
	}
	return xasprintf("%s/.input%s", s->out, ext);
}

/* The seeds and the dictionary; errors before anything is written. */
static int load_inputs(struct fz_session *s)
{
	const struct fz_options *o = s->o;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < o->ninputs; i++)
		ret = add_seed_path(s, o->inputs[i]);
	if (ret == 0 && !s->n)
		ret = err_set(ERR_INVALID, "fuzz: no seed inputs (give files or directories with "
					   "-i)");
	if (ret == 0 && o->dict_path)
		ret = fz_dict_load(o->dict_path, &s->dict);
	return ret;
}

static int prepare(struct fz_session *s)
{
	const struct fz_options *o = s->o;
	int ret;

	if (!s->resumed || o->seed_set)
		s->seed = o->seed_set ? o->seed : fresh_seed();
	if (!s->resumed || o->seed_set)
		fz_rng_seed(&s->rng, s->seed ^ s->runs);
	choose_max_size(s);
	choose_rules(s);
	if (s->resumed) {
		/* The saved curve was binned for the old limit. */
		struct fz_point old[FZ_ENV_BINS];

		memcpy(old, s->env, sizeof(old));
		memset(s->env, 0, sizeof(s->env));
		for (size_t i = 0; i < FZ_ENV_BINS; i++)
			if (old[i].set && old[i].len <= s->max_size)
				fz_env_put(s, old[i].len, old[i].cost);
	}
	if (o->coverage) {
		ret = fz_cover_open(&s->cov);
		if (ret < 0)
			return ret;
		s->cov_open = true;
	}
	s->input_path = input_name(s);
	ret = fz_exec_init(&s->ex, o->argv, s->input_path, o->metric, s->cov_open ? &s->cov : NULL);
	s->ex.stop = o->stop;
	if (ret == 0 && s->metric_was && strcmp(s->metric_was, fz_metric_name(s->ex.metric)))
		ret = err_set(
			ERR_INVALID,
			"fuzz: %s was measured by %s, this run would measure %s; use the same "
			"--metric or another -o",
			s->out, s->metric_was, fz_metric_name(s->ex.metric));
	return ret;
}

/*
 * A saved session is locked and loaded first; a new one makes its output
 * directory only once its seeds, dictionary and program are known good, so
 * a mistyped option leaves nothing behind.
 */
static int start(struct fz_session *s)
{
	bool fresh;
	int ret = 0;

	/* Before the state, which holds the rules' statistics. */
	s->rules = fz_rules(&s->nrules);
	s->hits = xcalloc(s->nrules, sizeof(*s->hits));
	s->tries = xcalloc(s->nrules, sizeof(*s->tries));
	fz_state_paths(s);
	fresh = !path_exists(s->state_path);
	if (!fresh) {
		ret = fz_state_open(s);
		if (ret == 0)
			ret = fz_state_load(s);
	}
	if (ret == 0)
		ret = load_inputs(s);
	if (ret == 0)
		ret = prepare(s);
	if (ret == 0 && fresh)
		ret = fz_state_open(s);
	return ret;
}

static int session(struct fz_session *s, struct fz_report *rep)
{
	int ret = start(s);

	if (ret < 0)
		return ret;
	s->t_start = s->last_checkpoint = fz_now();
	s->runs0 = s->runs;
	s->crashes0 = s->crashes;
	s->hangs0 = s->hangs;
	progress(s, "calibrating", true);
	ret = calibrate(s, rep);
	if (ret == 0 && s->ex.metric == FZ_METRIC_HITS && !s->use_cov)
		ret = err_set(ERR_INVALID, "fuzz: --metric hits needs a program built with `veles "
					   "cflags fuzz --link` (this one counts no edges)");
	if (ret == 0 && s->resumed) {
		progress(s, "resuming", true);
		ret = rerun_corpus(s);
	}
	if (ret == 0)
		ret = fz_state_save(s);
	if (ret == 0)
		progress(s, "fuzzing", true);
	if (ret == 0)
		ret = fuzz_loop(s);
	if (ret == 0) {
		progress(s, "re-measuring", true);
		ret = fz_report_fill(s, rep);
	}
	if (ret == 0)
		ret = fz_state_save(s);
	return ret;
}

int fz_run(const struct fz_options *o, struct fz_report *rep)
{
	struct fz_session s;
	int ret;

	memset(rep, 0, sizeof(*rep));
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.lock_fd = -1;
	s.cov.fd = -1;
	s.ex.null_fd = -1;
	s.out = xstrdup(o->out_dir);
	ret = session(&s, rep);
	fz_exec_release(&s.ex);
	if (s.cov_open)
		fz_cover_close(&s.cov);
	fz_corpus_release(&s);
	fz_dict_release(&s.dict);
	fz_state_close(&s);
	free(s.usable);
	free(s.hits);
	free(s.tries);
	if (s.input_path)
		unlink(s.input_path);
	if (s.input_dir)
		rmdir(s.input_dir);
	free(s.input_path);
	free(s.input_dir);
	free(s.metric_was);
	free(s.out);
	if (ret < 0)
		fz_report_release(rep);
	return ret;
}
