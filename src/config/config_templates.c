/*
 * The configuration templates of `veles init --config-template` and
 * `veles config reset`, Perun's three: master (everything commented out,
 * the file `veles init` always wrote), developer (a build before each
 * collection and degradation checks that collect what they miss) and user
 * (developer, plus the programs in build/, _build/ or dist/ and the files
 * in workload/, examples/, payload/ ... folders as the job matrix, timed by
 * the time collector, each profile registered after its run).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "util/buf.h"
#include "util/common.h"

const char *const config_template_names[] = {"master", "developer", "user", NULL};

static const char *const program_dirs[] = {"build", "_build", "dist", NULL};
static const char *const workload_dirs[] = {"workload", "workloads", "_workload", "_workloads",
					    "examples", "_examples", "payload",	  "payloads",
					    "_payload", "_payloads", NULL};

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

struct found {
	char **v;
	size_t n, cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Files directly in any folder under @dir (relative path @rel) named in
 * @names, searched through every folder but hidden ones (.git, .veles);
 * with @programs only the executable ones.
 */
static void search(const char *root, const char *rel, const char *const *names, bool programs,
		   struct found *out, int depth)
{
	char *dir = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	bool take = *rel && in_list(base, names);
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path, *sub;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		sub = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			search(root, sub, names, programs, out, depth + 1);
		} else if (take && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			   (!programs || access(path, X_OK) == 0)) {
			out->v = xgrow(out->v, sizeof(*out->v), out->n + 1, &out->cap);
			out->v[out->n++] = sub;
			sub = NULL;
		}
		free(sub);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* A list item: a path as one word of the matrix, quoted when it must be. */
static void add_item(struct buf *b, const char *path, bool workload)
{
	bool plain = strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789._/+-") == strlen(path);

	if (plain) {
		buf_addf(b, "  - %s\n", path);
		return;
	}
	/* YAML single quotes around a shell word in single quotes: a literal
	 * workload is split as a shell would. */
	buf_adds(b, "  - '");
	if (workload)
		buf_adds(b, "''");
	for (const char *s = path; *s; s++) {
		if (*s == '\'')
			buf_adds(b, workload ? "''\\'''" : "''");
		else
			buf_addc(b, *s);
	}
	if (workload)
		buf_adds(b, "''");
	buf_adds(b, "'\n");
}

static void add_found(struct buf *b, const char *key, struct found *f, bool workload,
		      const char *none)
{
	if (!f->n) {
		buf_adds(b, none);
		return;
	}
	qsort(f->v, f->n, sizeof(*f->v), cmp_str);
	buf_addf(b, "%s:\n", key);
	for (size_t i = 0; i < f->n; i++) {
		add_item(b, f->v[i], workload);
		free(f->v[i]);
	}
	free(f->v);
}

static const char developer_part[] =
	"\n"
	"# The developer template: the project is built before each collection,\n"
	"# and `veles check` collects a profile its baseline lacks (into\n"
	"# .veles/logs/) before judging by the average amount threshold.\n"
	"execute:\n"
	"  pre_run:\n"
	"    - make\n"
	"degradation:\n"
	"  collect_before_check: true\n"
	"  log_collect: true\n"
	"  apply: first\n"
	"  strategies:\n"
	"    - method: aat\n";

static void user_part(struct buf *b, const char *root)
{
	struct found progs = {0}, loads = {0};

	search(root, "", program_dirs, true, &progs, 0);
	search(root, "", workload_dirs, false, &loads, 0);
	buf_adds(b, "\n# The user template: the programs found in build/, _build/ and dist/,\n"
		    "# run on the files found in workload/, examples/, payload/ and the like,\n"
		    "# timed and registered with the version they measured.\n");
	add_found(b, "cmds", &progs, false,
		  "# No program was found in build/, _build/ or dist/: list yours.\n"
		  "# cmds:\n#   - ./build/prog\n");
	add_found(b, "workloads", &loads, true,
		  "# No workload was found in workload/, examples/ or payload/: list yours.\n"
		  "# workloads:\n#   - input.txt\n");
	buf_adds(b, "collectors:\n"
		    "  - name: time\n"
		    "    params:\n"
		    "      warmup: 3\n"
		    "      repeat: 10\n"
		    "profiles:\n"
		    "  register_after_run: true\n"
		    "format:\n"
		    "  output_profile_template: \"%collector%-of-%cmd%-%workload%-%date%\"\n");
}

bool config_template_known(const char *name)
{
	return in_list(name, config_template_names);
}

char *config_template_text(const char *name, const char *root)
{
	struct buf b = BUF_INIT;

	if (!config_template_known(name))
		return NULL;
	buf_adds(&b, config_template);
	if (strcmp(name, "master") != 0)
		buf_adds(&b, developer_part);
	if (strcmp(name, "user") == 0)
		user_part(&b, root);
	return buf_detach(&b, NULL);
}
