/* veles status: the current version, its profiles and the pending ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "cli/select.h"
#include "config/config.h"
#include "profile/profile.h"
#include "project/profile_order.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "vcs/vcs.h"

struct pending_info {
	char *name;
	char *type; /* NULL when the file does not load */
	char *origin;
	char *error;
};

static void load_pending(const struct cli_ctx *ctx, struct pending_info **out, size_t *n)
{
	char **names;
	size_t i;

	*out = NULL;
	if (pending_list(ctx, &names, n) < 0) {
		*n = 0;
		return;
	}
	*out = xcalloc(*n ? *n : 1, sizeof(**out));
	for (i = 0; i < *n; i++) {
		char *path = xasprintf("%s/%s", ctx->jobs_dir, names[i]);
		struct profile *p;

		(*out)[i].name = names[i];
		if (profile_load_header(path, &p) == 0) {
			(*out)[i].type = xstrdup(p->type);
			(*out)[i].origin = p->origin ? xstrdup(p->origin) : NULL;
			profile_free(p);
		} else {
			(*out)[i].error = xstrdup(err_msg());
		}
		free(path);
	}
	free(names);
}

static void free_pending(struct pending_info *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].type);
		free(p[i].origin);
		free(p[i].error);
	}
	free(p);
}

static void print_json(const char *head, const struct vcs_version *info, bool dirty,
		       const struct store_entry *e, size_t ne, const struct pending_info *p,
		       size_t np)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_adds(&b, "{\"version\":");
	if (head) {
		buf_add_json_str(&b, head, strlen(head));
		buf_adds(&b, ",\"summary\":");
		buf_add_json_str(&b, info->summary, strlen(info->summary));
	} else {
		buf_adds(&b, "null");
	}
	buf_addf(&b, ",\"dirty\":%s,\"profiles\":[", dirty ? "true" : "false");
	for (i = 0; i < ne; i++) {
		buf_addf(&b, "%s{\"index\":\"%zu@i\",\"type\":", i ? "," : "", i);
		buf_add_json_str(&b, e[i].type, strlen(e[i].type));
		buf_adds(&b, ",\"name\":");
		buf_add_json_str(&b, e[i].name, strlen(e[i].name));
		buf_addf(&b, ",\"id\":\"%s\"}", e[i].blob);
	}
	buf_adds(&b, "],\"pending\":[");
	for (i = 0; i < np; i++) {
		buf_addf(&b, "%s{\"index\":\"%zu@p\",\"type\":", i ? "," : "", i);
		if (p[i].type)
			buf_add_json_str(&b, p[i].type, strlen(p[i].type));
		else
			buf_adds(&b, "null");
		buf_adds(&b, ",\"name\":");
		buf_add_json_str(&b, p[i].name, strlen(p[i].name));
		buf_adds(&b, ",\"origin\":");
		if (p[i].origin)
			buf_add_json_str(&b, p[i].origin, strlen(p[i].origin));
		else
			buf_adds(&b, "null");
		buf_adds(&b, "}");
	}
	buf_adds(&b, "]}\n");
	fputs(buf_str(&b), stdout);
	buf_release(&b);
}

/* "N profiles (a memory, b time)": the counts per type, as Perun's short
 * status gives them. */
static void print_counts(const char *what, const char *const *types, size_t n)
{
	size_t i, j, k;

	if (!n) {
		printf("%s: none\n", what);
		return;
	}
	printf("%s: %zu (", what, n);
	for (i = 0, k = 0; i < n; i++) {
		size_t same = 0;

		for (j = 0; j < i && strcmp(types[j], types[i]) != 0; j++)
			;
		if (j < i)
			continue; /* counted at its first */
		for (j = i; j < n; j++)
			same += strcmp(types[j], types[i]) == 0;
		printf("%s%zu %s", k++ ? ", " : "", same, types[i]);
	}
	printf(")\n");
}

static void print_short(const struct store_entry *e, size_t ne, const struct pending_info *p,
			size_t np)
{
	const char **types = xcalloc(ne + np + 1, sizeof(*types));
	size_t i;

	for (i = 0; i < ne; i++)
		types[i] = e[i].type;
	print_counts("Profiles of this version", types, ne);
	for (i = 0; i < np; i++)
		types[i] = p[i].type ? p[i].type : "?";
	print_counts("Pending profiles", types, np);
	free(types);
}

static void print_text(struct cli_ctx *ctx, const char *head, const struct vcs_version *info,
		       bool dirty, const struct store_entry *e, size_t ne,
		       const struct pending_info *p, size_t np, bool brief)
{
	char *branch = vcs_branch(ctx->vcs);
	size_t i;

	if (!head)
		printf("No version yet: commit something first.\n");
	else if (vcs_kind(ctx->vcs) == VCS_PLAIN)
		printf("On version v%u (%.7s): %s\n", info->counter, head, info->summary);
	else
		printf("On version %.7s%s%s%s: %s\n", head, branch ? " (branch " : "",
		       branch ? branch : "", branch ? ")" : "", info->summary);
	free(branch);
	if (dirty)
		printf("  Uncommitted changes: profiles collected now may not match this "
		       "version.\n");
	if (brief) {
		print_short(e, ne, p, np);
		return;
	}

	printf("\nProfiles of this version (%zu):\n", ne);
	if (!ne)
		printf("  (none)\n");
	for (i = 0; i < ne; i++)
		printf("  %zu@i  %-7s %s  %.8s\n", i, e[i].type, e[i].name, e[i].blob);

	printf("\nPending profiles in .veles/jobs/ (%zu):\n", np);
	if (!np)
		printf("  (none; `veles collect` makes some)\n");
	for (i = 0; i < np; i++) {
		const char *note = "";

		if (p[i].error)
			note = "  (unreadable)";
		else if (head && p[i].origin && strcmp(p[i].origin, head) != 0)
			note = "  (another version)";
		printf("  %zu@p  %-7s %s%s\n", i, p[i].type ? p[i].type : "?", p[i].name, note);
	}
	if (np)
		printf("  (use \"veles add N@p...\" to register them with this version)\n");
}

/* --sort-by: Perun keeps the key in the local configuration, so the
 * numbering it gives stays for the commands that follow. */
static int set_sort_key(struct cli_ctx *ctx, const char *key)
{
	char *path;
	int ret;

	if (!order_key_valid(key))
		return cli_usage_error("status",
				       "--sort-by: '%s' is none of time, type, cmd, workload, "
				       "collector, source, realpath, checksum",
				       key);
	path = xasprintf("%s/config.yml", ctx->veles_dir);
	ret = config_set_file(path, "format.sort_profiles_by", key);
	free(path);
	return ret < 0 ? cli_fail() : 0;
}

int cmd_status(struct cli_ctx *ctx, int argc, char **argv)
{
	enum out_format fmt = FORMAT_TEXT;
	bool brief = false;
	const char *format = NULL, *sort_key = NULL;
	const struct opt opts[] = {
		OPT_BOOL('s', "short", &brief,
			 "the version and the number of profiles of each type"),
		OPT_STRING(0, "sort-by", &sort_key, "KEY",
			   "number profiles by KEY from now on, descending as Perun\n"
			   "does: time, type, cmd, workload, collector, source,\n"
			   "realpath or checksum (sets format.sort_profiles_by in\n"
			   ".veles/config.yml; -sb is Perun's spelling)"),
		OPT_STRING(0, "format", &format, "FMT", "text (default) or json"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "status",
		.usage = "veles status [-s|--short] [--sort-by KEY] [--format text|json]",
		.about = "Shows the current version (HEAD), the profiles registered to it (N@i)\n"
			 "and the pending profiles in .veles/jobs/ (N@p), numbered the way other\n"
			 "commands accept them.",
		.opts = opts,
	};
	struct vcs_version info = {0};
	struct store_entry *e = NULL;
	struct pending_info *pend;
	size_t ne = 0, np;
	char head[41];
	bool has_head, dirty = false;
	int nop, ret;

	cli_perun_short_opts(argc, argv, (const char *const[]){"-sb", "--sort-by", NULL});
	if ((ret = cli_parse_options(&p, argc, argv, &nop)) != 0)
		return ret < 0 ? 0 : ret;
	if (nop)
		return cli_usage_error("status", "unexpected argument '%s'", argv[1]);
	if (format && cli_parse_format("status", format, &fmt) < 0)
		return 2;
	if (sort_key && (ret = set_sort_key(ctx, sort_key)) != 0)
		return ret;
	ret = vcs_head(ctx->vcs, head);
	if (ret < 0 && ret != ERR_NOTFOUND)
		return cli_fail();
	has_head = ret == 0;
	if (has_head &&
	    (vcs_version_info(ctx->vcs, head, &info) < 0 ||
	     store_list(ctx->store, head, &e, &ne) < 0 || vcs_is_dirty(ctx->vcs, &dirty) < 0))
		return cli_fail();
	order_stored(&ctx->project, e, ne);
	load_pending(ctx, &pend, &np);
	if (fmt == FORMAT_JSON)
		print_json(has_head ? head : NULL, &info, dirty, e, ne, pend, np);
	else
		print_text(ctx, has_head ? head : NULL, &info, dirty, e, ne, pend, np, brief);
	store_entries_free(e, ne);
	free_pending(pend, np);
	return 0;
}
