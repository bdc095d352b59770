/* veles status: the current version, its profiles and the pending ones. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "vcs/vcs.h"

static const char status_usage[] =
	"usage: veles status [--format text|json]\n"
	"\n"
	"Shows the current version (HEAD), the profiles registered to it (N@i)\n"
	"and the pending profiles in .veles/jobs/ (N@p), numbered the way other\n"
	"commands accept them.\n"
	"\n"
	"  --format FMT   text (default) or json\n";

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

static void print_text(struct cli_ctx *ctx, const char *head, const struct vcs_version *info,
		       bool dirty, const struct store_entry *e, size_t ne,
		       const struct pending_info *p, size_t np)
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

int cmd_status(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum out_format fmt = FORMAT_TEXT;
	struct vcs_version info = {0};
	struct store_entry *e = NULL;
	struct pending_info *p;
	size_t ne = 0, np;
	char head[41];
	bool has_head, dirty = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (cli_parse_format("status", optarg, &fmt) < 0)
				return 2;
			break;
		case 'h':
			fputs(status_usage, stdout);
			return 0;
		default:
			return cli_bad_option("status", argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("status", "unexpected argument '%s'", argv[optind]);
	ret = vcs_head(ctx->vcs, head);
	if (ret < 0 && ret != ERR_NOTFOUND)
		return cli_fail();
	has_head = ret == 0;
	if (has_head &&
	    (vcs_version_info(ctx->vcs, head, &info) < 0 ||
	     store_list(ctx->store, head, &e, &ne) < 0 || vcs_is_dirty(ctx->vcs, &dirty) < 0))
		return cli_fail();
	load_pending(ctx, &p, &np);
	if (fmt == FORMAT_JSON)
		print_json(has_head ? head : NULL, &info, dirty, e, ne, p, np);
	else
		print_text(ctx, has_head ? head : NULL, &info, dirty, e, ne, p, np);
	store_entries_free(e, ne);
	free_pending(p, np);
	return 0;
}
