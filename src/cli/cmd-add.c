/* veles add / veles rm: register profiles with a version, or drop them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static const char add_usage[] =
	"usage: veles add [-m REV] [-f] [-k] [-q] PROFILE...\n"
	"       veles add --own [-k] [-q] [PROFILE...]\n"
	"\n"
	"Registers profiles with a version (default: HEAD) in the store. PROFILE\n"
	"is a pending profile's index (N or N@p, as `veles status` numbers them),\n"
	"its file name in .veles/jobs/, or a path to any profile file. All are\n"
	"registered in one step, or none is. A pending profile is removed from\n"
	"jobs/ once registered (see add.keep_profile in config.yml), however it\n"
	"was named. A range A@p-B@p (Perun's) names A@p to B@p, past the last\n"
	"one skipped.\n"
	"\n"
	"  -m, --minor REV      the version to register with (commit, branch, tag, vN)\n"
	"      --own            register each profile with the version it was\n"
	"                       collected on (its origin); without PROFILE, every\n"
	"                       pending profile (after `run matrix -m A -m B`)\n"
	"  -f, --force          register even when the profile was collected on\n"
	"                       another version; its origin is set to REV\n"
	"  -k, --keep-profile   keep pending profiles in .veles/jobs/\n"
	"  -q, --quiet          print nothing on success\n";

static const char rm_usage[] =
	"usage: veles rm [-m REV] [-q] PROFILE...\n"
	"\n"
	"Removes profiles from a version (default: HEAD): N or N@i (as `veles\n"
	"status` numbers them), a registered profile's name, or a prefix of its\n"
	"id. N@p or a file in .veles/jobs/ deletes that pending profile instead.\n"
	"Ranges A@i-B@i and A@p-B@p (Perun's) name every profile from A to B,\n"
	"past the last one skipped. All named profiles are removed in one step,\n"
	"or none is.\n"
	"\n"
	"  -m, --minor REV   the version to remove from\n"
	"  -q, --quiet       print nothing on success\n";

struct add_opts {
	const char *rev;
	bool force, keep, quiet, own;
};

/* --own: the version @p was collected on, which must be one of ours. */
static int own_version(struct cli_ctx *ctx, const struct profile_ref *ref, const struct profile *p,
		       char version[41])
{
	if (!p->origin || !*p->origin)
		return err_set(ERR_INVALID,
			       "%s does not say which version it was collected on; "
			       "register it with -m REV",
			       ref_name(ref));
	if (vcs_resolve(ctx->vcs, p->origin, version) < 0)
		return err_set(ERR_NOTFOUND,
			       "%s was collected on version %.7s, which this project does not have",
			       ref_name(ref), p->origin);
	return 0;
}

/*
 * Loads and checks one profile; fills @data with what the store keeps. A
 * compact profile is checked a column at a time and stored as its bytes
 * are (its header written anew when its origin changes): ten million
 * resources are never in memory at once. With --own, @version is filled
 * from the profile's origin.
 */
static int prepare_one(struct cli_ctx *ctx, const struct profile_ref *ref, char version[41],
		       const struct add_opts *o, struct buf *data, char **type)
{
	bool compact = ref->kind != REF_STORED && profile_file_is_compact(ref->path);
	struct buf raw = BUF_INIT;
	struct profile *p = NULL;
	int ret = compact ? file_read_all(ref->path, &raw) : ref_load(ctx, ref, &p);

	if (ret == 0 && compact)
		ret = profile_decode_check((const uint8_t *)raw.data, raw.len, ref_name(ref), &p);
	if (ret == 0 && o->own)
		ret = own_version(ctx, ref, p, version);
	if (ret == 0 && p->origin && strcmp(p->origin, version) != 0) {
		if (!o->force)
			ret = err_set(ERR_INVALID,
				      "%s was collected on version %.7s, not %.7s; "
				      "use -m %.7s, or --force to file it under %.7s anyway",
				      ref_name(ref), p->origin, version, p->origin, version);
		else
			cli_warn("%s was collected on %.7s; filing it under %.7s", ref_name(ref),
				 p->origin, version);
	}
	if (ret < 0) {
		profile_free(p);
		buf_release(&raw);
		return ret;
	}
	if (compact && p->origin && strcmp(p->origin, version) == 0) {
		*data = raw;
		raw = (struct buf)BUF_INIT;
	} else if (compact) {
		ret = profile_compact_with_origin((const uint8_t *)raw.data, raw.len, version,
						  data);
	} else {
		free(p->origin);
		p->origin = xstrdup(version);
		ret = profile_encode(p, data);
	}
	*type = xstrdup(p->type);
	profile_free(p);
	buf_release(&raw);
	return ret;
}

static int parse_add_opts(const char *cmd, int argc, char **argv, struct add_opts *o,
			  const char *usage, bool is_add)
{
	static const struct option opts[] = {
		{"minor", required_argument, NULL, 'm'},
		{"force", no_argument, NULL, 'f'},
		{"keep-profile", no_argument, NULL, 'k'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"own", no_argument, NULL, 'O'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, is_add ? "m:fkqh" : "m:qh", opts, NULL)) != -1) {
		if (c == 'O' && !is_add)
			c = '?';
		switch (c) {
		case 'O':
			o->own = true;
			break;
		case 'm':
			o->rev = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'k':
			o->keep = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			cli_bad_option(cmd, argv);
			return -1;
		}
	}
	if (o->own && (o->rev || o->force)) {
		cli_usage_error(cmd, "--own takes each profile's version from the profile: "
				     "no -m or --force with it");
		return -1;
	}
	if (optind >= argc && !o->own) {
		cli_usage_error(cmd, "name at least one profile");
		return -1;
	}
	return 0;
}

static void report_added(const char *version, const struct store_item *items, const bool *added,
			 char (*blobs)[41], size_t n)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		count += added[i];
	printf("Registered %zu profile%s with version %.7s\n", count, count == 1 ? "" : "s",
	       version);
	for (i = 0; i < n; i++)
		printf("  %s %s (%.8s)%s\n", added[i] ? "+" : "=", items[i].name, blobs[i],
		       added[i] ? "" : "  already registered");
}

/* Everything one `veles add` registers, each profile with its version. */
struct add_set {
	size_t n;
	struct profile_ref *refs;
	struct store_item *items;
	struct buf *json;
	char **types;
	char (*versions)[41];
	bool *added;
	char (*blobs)[41];
};

static void add_set_init(struct add_set *a, size_t n)
{
	a->n = n;
	a->refs = xcalloc(n + 1, sizeof(*a->refs));
	a->items = xcalloc(n + 1, sizeof(*a->items));
	a->json = xcalloc(n + 1, sizeof(*a->json));
	a->types = xcalloc(n + 1, sizeof(*a->types));
	a->versions = xcalloc(n + 1, sizeof(*a->versions));
	a->added = xcalloc(n + 1, sizeof(*a->added));
	a->blobs = xcalloc(n + 1, sizeof(*a->blobs));
}

static void add_set_free(struct add_set *a, size_t done)
{
	for (size_t i = 0; i < done; i++) {
		ref_release(&a->refs[i]);
		buf_release(&a->json[i]);
		free(a->types[i]);
	}
	free(a->refs);
	free(a->items);
	free(a->json);
	free(a->types);
	free(a->versions);
	free(a->added);
	free(a->blobs);
}

/* Resolves and loads profile @i of @a, named @spec. */
static int prepare(struct cli_ctx *ctx, const struct add_opts *o, const char *head,
		   struct add_set *a, size_t i, const char *spec)
{
	int ret;

	memcpy(a->versions[i], head, 41);
	ret = ref_resolve(ctx, spec, head, REF_DEFAULT_PENDING, &a->refs[i]);
	if (ret == 0 && a->refs[i].kind == REF_STORED)
		ret = err_set(ERR_EXISTS, "%s is already registered (with %.7s)", spec,
			      a->refs[i].version);
	if (ret == 0)
		ret = prepare_one(ctx, &a->refs[i], a->versions[i], o, &a->json[i], &a->types[i]);
	if (ret < 0)
		return ret;
	a->items[i].type = a->types[i];
	a->items[i].name = ref_name(&a->refs[i]);
	a->items[i].data = a->json[i].data;
	a->items[i].len = a->json[i].len;
	a->items[i].compressed = true;
	return 0;
}

/*
 * Registers the profiles version by version: one store update each (with
 * --own a matrix run over several versions fills several), in the order
 * the versions first appear.
 */
static int register_all(struct cli_ctx *ctx, const struct add_opts *o, struct add_set *a)
{
	bool *done = xcalloc(a->n + 1, sizeof(*done));
	size_t *pick = xcalloc(a->n + 1, sizeof(*pick));
	struct store_item *items = xcalloc(a->n + 1, sizeof(*items));
	bool *added = xcalloc(a->n + 1, sizeof(*added));
	char(*blobs)[41] = xcalloc(a->n + 1, sizeof(*blobs));
	int ret = 0;

	for (size_t i = 0; i < a->n && ret == 0; i++) {
		size_t k = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < a->n; j++) {
			if (done[j] || strcmp(a->versions[j], a->versions[i]) != 0)
				continue;
			done[j] = true;
			pick[k] = j;
			items[k++] = a->items[j];
		}
		ret = store_add(ctx->store, a->versions[i], items, k, added, blobs);
		for (size_t m = 0; m < k && ret == 0; m++) {
			a->added[pick[m]] = added[m];
			memcpy(a->blobs[pick[m]], blobs[m], 41);
		}
		if (ret == 0 && !o->quiet)
			report_added(a->versions[i], items, added, blobs, k);
	}
	free(done);
	free(pick);
	free(items);
	free(added);
	free(blobs);
	return ret;
}

/* Pending profiles leave jobs/ once registered, however they were named. */
static void drop_pending(const struct add_opts *o, const struct add_set *a)
{
	for (size_t i = 0; i < a->n && !o->keep; i++)
		if (a->refs[i].kind == REF_PENDING && unlink(a->refs[i].path) < 0 &&
		    errno != ENOENT)
			cli_warn("cannot remove %s: %s", a->refs[i].path, strerror(errno));
}

int cmd_add(struct cli_ctx *ctx, int argc, char **argv)
{
	struct add_opts o = {0};
	struct add_set a;
	char head[41], **pending = NULL, **specs;
	size_t n, npending = 0, done = 0;
	int ret = parse_add_opts("add", argc, argv, &o, add_usage, true);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (cli_resolve_version(ctx, o.rev, head) < 0)
		return 1;
	o.keep = o.keep || cli_config_bool(ctx, "add.keep_profile", false);
	if (ref_expand_ranges(ctx, head, argv + optind, (size_t)(argc - optind), &specs, &n) < 0)
		return cli_fail();
	if (n == 0 && optind < argc) {
		pending_free(specs, n);
		if (!o.quiet)
			printf("Nothing to add: %s names no pending profile\n", argv[optind]);
		return 0;
	}
	if (n == 0 && pending_list(ctx, &pending, &npending) < 0) {
		pending_free(specs, n);
		return cli_fail();
	}
	if (n == 0 && npending == 0) {
		pending_free(pending, npending);
		pending_free(specs, n);
		return cli_error("no pending profiles to register");
	}
	add_set_init(&a, n ? n : npending);
	for (size_t i = 0; i < a.n && ret == 0; i++, done++)
		ret = prepare(ctx, &o, head, &a, i, n ? specs[i] : pending[i]);
	if (ret == 0)
		ret = register_all(ctx, &o, &a);
	if (ret < 0)
		cli_fail();
	else
		drop_pending(&o, &a);
	add_set_free(&a, done);
	pending_free(pending, npending);
	pending_free(specs, n);
	return ret < 0 ? 1 : 0;
}

/* Checks that a stored ref belongs to @version (a profile id found in
 * another version must not remove a same-named profile here). */
static int stored_in_version(struct cli_ctx *ctx, const char *version,
			     const struct profile_ref *ref)
{
	struct store_entry *e;
	size_t n, i;
	int ret = store_list(ctx->store, version, &e, &n);

	if (ret < 0)
		return ret;
	ret = err_set(ERR_NOTFOUND, "%s is not registered with version %.7s", ref_name(ref),
		      version);
	for (i = 0; i < n; i++)
		if (strcmp(e[i].blob, ref->entry.blob) == 0 &&
		    strcmp(e[i].name, ref->entry.name) == 0)
			ret = 0;
	store_entries_free(e, n);
	return ret;
}

int cmd_rm(struct cli_ctx *ctx, int argc, char **argv)
{
	struct add_opts o = {0};
	struct profile_ref *refs;
	struct store_entry *gone;
	char version[41], **specs;
	size_t n, i, ngone = 0, done = 0;
	int ret = parse_add_opts("rm", argc, argv, &o, rm_usage, false);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (cli_resolve_version(ctx, o.rev, version) < 0)
		return 1;
	if (ref_expand_ranges(ctx, version, argv + optind, (size_t)(argc - optind), &specs, &n) < 0)
		return cli_fail();
	if (n == 0) {
		pending_free(specs, n);
		if (!o.quiet)
			printf("Nothing to remove: %s names no profile\n", argv[optind]);
		return 0;
	}
	refs = xcalloc(n, sizeof(*refs));
	gone = xcalloc(n, sizeof(*gone));
	for (i = 0; i < n && ret == 0; i++, done++) {
		ret = ref_resolve(ctx, specs[i], version, REF_DEFAULT_INDEX, &refs[i]);
		if (ret == 0 && refs[i].kind == REF_FILE)
			ret = err_set(
				ERR_INVALID,
				"%s is neither registered nor pending; rm leaves other files alone",
				refs[i].path);
		if (ret == 0 && refs[i].kind == REF_STORED) {
			ret = stored_in_version(ctx, version, &refs[i]);
			if (ret == 0)
				gone[ngone++] = refs[i].entry;
		}
	}
	if (ret == 0 && ngone)
		ret = store_rm(ctx->store, version, gone, ngone);
	if (ret == 0) {
		for (i = 0; i < n; i++) {
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
