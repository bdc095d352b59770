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
	"\n"
	"Registers profiles with a version (default: HEAD) in the store. PROFILE\n"
	"is a pending profile's index (N or N@p, as `veles status` numbers them),\n"
	"its file name in .veles/jobs/, or a path to any profile file. All are\n"
	"registered in one step, or none is. A pending profile is removed from\n"
	"jobs/ once registered (see add.keep_profile in config.yml).\n"
	"\n"
	"  -m, --minor REV      the version to register with (commit, branch, tag, vN)\n"
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
	"All named profiles are removed in one step, or none is.\n"
	"\n"
	"  -m, --minor REV   the version to remove from\n"
	"  -q, --quiet       print nothing on success\n";

struct add_opts {
	const char *rev;
	bool force, keep, quiet;
};

/*
 * Loads and checks one profile; fills @data with what the store keeps. A
 * compact profile is checked a column at a time and stored as its bytes
 * are (its header written anew when its origin changes): ten million
 * resources are never in memory at once.
 */
static int prepare_one(struct cli_ctx *ctx, const struct profile_ref *ref, const char *version,
		       const struct add_opts *o, struct buf *data, char **type)
{
	bool compact = ref->kind != REF_STORED && profile_file_is_compact(ref->path);
	struct buf raw = BUF_INIT;
	struct profile *p;
	int ret = compact ? file_read_all(ref->path, &raw) : ref_load(ctx, ref, &p);

	if (ret == 0 && compact)
		ret = profile_decode_check((const uint8_t *)raw.data, raw.len, ref_name(ref), &p);
	if (ret < 0) {
		buf_release(&raw);
		return ret;
	}
	if (p->origin && strcmp(p->origin, version) != 0) {
		if (!o->force) {
			ret = err_set(ERR_INVALID,
				      "%s was collected on version %.7s, not %.7s; "
				      "use -m %.7s, or --force to file it under %.7s anyway",
				      ref_name(ref), p->origin, version, p->origin, version);
			profile_free(p);
			buf_release(&raw);
			return ret;
		}
		cli_warn("%s was collected on %.7s; filing it under %.7s", ref_name(ref), p->origin,
			 version);
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
		{"minor", required_argument, NULL, 'm'},  {"force", no_argument, NULL, 'f'},
		{"keep-profile", no_argument, NULL, 'k'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, is_add ? "m:fkqh" : "m:qh", opts, NULL)) != -1) {
		switch (c) {
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
	if (optind >= argc) {
		cli_usage_error(cmd, "name at least one profile");
		return -1;
	}
	return 0;
}

static void report_added(const char *version, const struct profile_ref *refs,
			 const struct store_item *items, const bool *added, char (*blobs)[41],
			 size_t n)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		count += added[i];
	printf("Registered %zu profile%s with version %.7s\n", count, count == 1 ? "" : "s",
	       version);
	for (i = 0; i < n; i++)
		printf("  %s %s (%.8s)%s\n", added[i] ? "+" : "=", items[i].name, blobs[i],
		       added[i] ? "" : "  already registered");
	UNUSED(refs);
}

int cmd_add(struct cli_ctx *ctx, int argc, char **argv)
{
	struct add_opts o = {0};
	struct profile_ref *refs;
	struct store_item *items;
	struct buf *json;
	char **types, version[41], (*blobs)[41];
	bool *added;
	size_t n, i, done = 0;
	int ret = parse_add_opts("add", argc, argv, &o, add_usage, true);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (cli_resolve_version(ctx, o.rev, version) < 0)
		return 1;
	o.keep = o.keep || cli_config_bool(ctx, "add.keep_profile", false);
	n = (size_t)(argc - optind);
	refs = xcalloc(n, sizeof(*refs));
	items = xcalloc(n, sizeof(*items));
	json = xcalloc(n, sizeof(*json));
	types = xcalloc(n, sizeof(*types));
	added = xcalloc(n, sizeof(*added));
	blobs = xcalloc(n, sizeof(*blobs));
	for (i = 0; i < n; i++, done++) {
		const char *spec = argv[optind + (int)i];

		ret = ref_resolve(ctx, spec, version, REF_DEFAULT_PENDING, &refs[i]);
		if (ret == 0 && refs[i].kind == REF_STORED)
			ret = err_set(ERR_EXISTS, "%s is already registered (with %.7s)", spec,
				      refs[i].version);
		if (ret == 0)
			ret = prepare_one(ctx, &refs[i], version, &o, &json[i], &types[i]);
		if (ret < 0) {
			done++;
			break;
		}
		items[i].type = types[i];
		items[i].name = ref_name(&refs[i]);
		items[i].data = json[i].data;
		items[i].len = json[i].len;
		items[i].compressed = true;
	}
	if (ret == 0)
		ret = store_add(ctx->store, version, items, n, added, blobs);
	if (ret < 0) {
		cli_fail();
	} else {
		for (i = 0; i < n; i++)
			if (!o.keep && refs[i].kind == REF_PENDING && unlink(refs[i].path) < 0 &&
			    errno != ENOENT)
				cli_warn("cannot remove %s: %s", refs[i].path, strerror(errno));
		if (!o.quiet)
			report_added(version, refs, items, added, blobs, n);
	}
	for (i = 0; i < done; i++) {
		ref_release(&refs[i]);
		buf_release(&json[i]);
		free(types[i]);
	}
	free(refs);
	free(items);
	free(json);
	free(types);
	free(added);
	free(blobs);
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
	char version[41];
	size_t n, i, ngone = 0, done = 0;
	int ret = parse_add_opts("rm", argc, argv, &o, rm_usage, false);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (cli_resolve_version(ctx, o.rev, version) < 0)
		return 1;
	n = (size_t)(argc - optind);
	refs = xcalloc(n, sizeof(*refs));
	gone = xcalloc(n, sizeof(*gone));
	for (i = 0; i < n && ret == 0; i++, done++) {
		ret = ref_resolve(ctx, argv[optind + (int)i], version, REF_DEFAULT_INDEX, &refs[i]);
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
	return ret < 0 ? 1 : 0;
}
