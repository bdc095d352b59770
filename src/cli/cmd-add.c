/* veles add / veles rm: register profiles with a version, or drop them
 * (project/add.h does the work). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "project/add.h"
#include "project/settings.h"
#include "store/store.h"
#include "util/common.h"
#include "util/optparse.h"

struct add_cli {
	const char *rev;
	bool keep, quiet;
	struct add_opts ao;
};

/* Returns -1 after --help, 0 with *@nop operands in argv[1..], or 2. */
static int parse_add(int argc, char **argv, struct add_cli *o, int *nop)
{
	const struct opt opts[] = {
		OPT_STRING('m', "minor", &o->rev, "REV",
			   "the version to register with (commit, branch, tag, vN)"),
		OPT_BOOL(0, "own", &o->ao.own,
			 "register each profile with the version it was\n"
			 "collected on (its origin); without PROFILE, every\n"
			 "pending profile (after `run matrix -m A -m B`)"),
		OPT_BOOL('f', "force", &o->ao.force,
			 "register even when the profile was collected on\n"
			 "another version; its origin is set to REV"),
		OPT_BOOL('k', "keep-profile", &o->keep, "keep pending profiles in .veles/jobs/"),
		OPT_BOOL('q', "quiet", &o->quiet, "print nothing on success"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "add",
		.usage = "veles add [-m REV] [-f] [-k] [-q] PROFILE...\n"
			 "veles add --own [-k] [-q] [PROFILE...]",
		.about =
			"Registers profiles with a version (default: HEAD) in the store. PROFILE\n"
			"is a pending profile's index (N or N@p, as `veles status` numbers them),\n"
			"its file name in .veles/jobs/, or a path to any profile file. All are\n"
			"registered in one step, or none is. A pending profile is removed from\n"
			"jobs/ once registered (see add.keep_profile in config.yml), however it\n"
			"was named. A range A@p-B@p (Perun's) names A@p to B@p, past the last\n"
			"one skipped.",
		.opts = opts,
	};
	int ret = cli_parse_options(&p, argc, argv, nop);

	if (ret)
		return ret;
	if (o->ao.own && (o->rev || o->ao.force))
		return cli_usage_error("add", "--own takes each profile's version from the "
					      "profile: no -m or --force with it");
	if (*nop == 0 && !o->ao.own)
		return cli_usage_error("add", "name at least one profile");
	return 0;
}

static void report_added(void *arg, const char *version, const struct store_item *items,
			 const bool *added, char (*blobs)[41], size_t n)
{
	size_t count = 0;

	UNUSED(arg);
	for (size_t i = 0; i < n; i++)
		count += added[i];
	printf("Registered %zu profile%s with version %.7s\n", count, count == 1 ? "" : "s",
	       version);
	for (size_t i = 0; i < n; i++)
		printf("  %s %s (%.8s)%s\n", added[i] ? "+" : "=", items[i].name, blobs[i],
		       added[i] ? "" : "  already registered");
}

/* Pending profiles leave jobs/ once registered, however they were named. */
static void drop_pending(const struct add_cli *o, const struct add_set *a)
{
	for (size_t i = 0; i < a->n && !o->keep; i++)
		if (a->refs[i].kind == REF_PENDING && unlink(a->refs[i].path) < 0 &&
		    errno != ENOENT)
			cli_warn("cannot remove %s: %s", a->refs[i].path, strerror(errno));
}

/* The profiles named (or, with none and --own, every pending one), and
 * registered; the exit status. */
static int add_named(struct cli_ctx *ctx, struct add_cli *o, const char *head, char **specs,
		     size_t n)
{
	struct add_set a;
	char **pending = NULL;
	size_t npending = 0, done = 0;
	int ret = 0;

	if (n == 0 && pending_list(ctx, &pending, &npending) < 0)
		return cli_fail();
	if (n == 0 && npending == 0) {
		pending_free(pending, npending);
		return cli_error("no pending profiles to register");
	}
	add_set_init(&a, n ? n : npending);
	for (size_t i = 0; i < a.n && ret == 0; i++, done++)
		ret = add_prepare(&ctx->project, &o->ao, head, &a, i, n ? specs[i] : pending[i]);
	if (ret == 0)
		ret = add_register(&ctx->project, &o->ao, &a);
	if (ret < 0)
		cli_fail();
	else
		drop_pending(o, &a);
	add_set_free(&a, done);
	pending_free(pending, npending);
	return ret < 0 ? 1 : 0;
}

int cmd_add(struct cli_ctx *ctx, int argc, char **argv)
{
	struct add_cli o = {0};
	char head[41], **specs;
	size_t n;
	int nop, ret = parse_add(argc, argv, &o, &nop);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (cli_resolve_version(ctx, o.rev, head) < 0)
		return 1;
	o.keep = o.keep || project_setting_bool(&ctx->project, "add.keep_profile", false);
	o.ao.registered = o.quiet ? NULL : report_added;
	if (ref_expand_ranges(ctx, head, argv + 1, (size_t)nop, &specs, &n) < 0)
		return cli_fail();
	if (n == 0 && nop > 0) {
		pending_free(specs, n);
		if (!o.quiet)
			printf("Nothing to add: %s names no pending profile\n", argv[1]);
		return 0;
	}
	ret = add_named(ctx, &o, head, specs, n);
	pending_free(specs, n);
	return ret;
}

/* Returns -1 after --help, 0 with *@nop operands in argv[1..], or 2. */
static int parse_rm(int argc, char **argv, struct add_cli *o, int *nop)
{
	const struct opt opts[] = {
		OPT_STRING('m', "minor", &o->rev, "REV", "the version to remove from"),
		OPT_BOOL('q', "quiet", &o->quiet, "print nothing on success"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "rm",
		.usage = "veles rm [-m REV] [-q] PROFILE...",
		.about = "Removes profiles from a version (default: HEAD): N or N@i (as `veles\n"
			 "status` numbers them), a registered profile's name, or a prefix of its\n"
			 "id. N@p or a file in .veles/jobs/ deletes that pending profile instead.\n"
			 "Ranges A@i-B@i and A@p-B@p (Perun's) name every profile from A to B,\n"
			 "past the last one skipped. All named profiles are removed in one step,\n"
			 "or none is.",
		.opts = opts,
	};
	int ret = cli_parse_options(&p, argc, argv, nop);

	if (ret == 0 && *nop == 0)
		return cli_usage_error("rm", "name at least one profile");
	return ret;
}

/* Resolves every spec: registered ones must belong to @version. */
static int rm_resolve(struct cli_ctx *ctx, const char *version, char **specs, size_t n,
		      struct profile_ref *refs, struct store_entry *gone, size_t *ngone,
		      size_t *done)
{
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++, (*done)++) {
		ret = ref_resolve(ctx, specs[i], version, REF_DEFAULT_INDEX, &refs[i]);
		if (ret == 0 && refs[i].kind == REF_FILE)
			ret = err_set(
				ERR_INVALID,
				"%s is neither registered nor pending; rm leaves other files alone",
				refs[i].path);
		if (ret == 0 && refs[i].kind == REF_STORED) {
			ret = add_stored_in_version(&ctx->project, version, &refs[i]);
			if (ret == 0)
				gone[(*ngone)++] = refs[i].entry;
		}
	}
	return ret;
}

int cmd_rm(struct cli_ctx *ctx, int argc, char **argv)
{
	struct add_cli o = {0};
	struct profile_ref *refs;
	struct store_entry *gone;
	char version[41], **specs;
	size_t n, i, ngone = 0, done = 0;
	int nop, ret = parse_rm(argc, argv, &o, &nop);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (cli_resolve_version(ctx, o.rev, version) < 0)
		return 1;
	if (ref_expand_ranges(ctx, version, argv + 1, (size_t)nop, &specs, &n) < 0)
		return cli_fail();
	if (n == 0) {
		pending_free(specs, n);
		if (!o.quiet)
			printf("Nothing to remove: %s names no profile\n", argv[1]);
		return 0;
	}
	refs = xcalloc(n, sizeof(*refs));
	gone = xcalloc(n, sizeof(*gone));
	ret = rm_resolve(ctx, version, specs, n, refs, gone, &ngone, &done);
	if (ret == 0 && ngone)
		ret = store_rm(ctx->store, version, gone, ngone);
	for (i = 0; i < n && ret == 0; i++) {
		if (refs[i].kind == REF_PENDING && unlink(refs[i].path) < 0) {
			ret = err_set(ERR_IO, "cannot remove %s: %s", refs[i].path,
				      strerror(errno));
			break;
		}
		if (!o.quiet)
			printf("Removed %s %s\n",
			       refs[i].kind == REF_PENDING ? "pending profile" : "profile",
			       ref_name(&refs[i]));
	}
	if (ret < 0)
		cli_fail();
	for (i = 0; i < done; i++)
		ref_release(&refs[i]);
	free(refs);
	free(gone);
	pending_free(specs, n);
	return ret < 0 ? 1 : 0;
}
