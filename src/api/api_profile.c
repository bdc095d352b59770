/* libveles: loading a profile and reading it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/flamegraph.h"

static const char *const json_parts[] = {"header", "collector_info", "postprocessors", "models",
					 "meta"};

veles_profile *api_profile_wrap(struct profile *p, const char *name, const char *id,
				const char *version)
{
	veles_profile *h = xcalloc(1, sizeof(*h));
	const char *slash = strrchr(name, '/');

	h->p = p;
	h->name = xstrdup(slash ? slash + 1 : name);
	snprintf(h->id, sizeof(h->id), "%s", id ? id : "");
	snprintf(h->version, sizeof(h->version), "%s", version ? version : "");
	return h;
}

int veles_profile_load(const char *path, veles_profile **out)
{
	struct profile *p;
	int ret;

	*out = NULL;
	if (!path)
		return err_set(ERR_INVALID, "no profile path given");
	ret = profile_load(path, &p);
	if (ret == 0)
		*out = api_profile_wrap(p, path, NULL, NULL);
	return ret;
}

void api_profile_forget(veles_profile *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(h->json); i++) {
		free(h->json[i]);
		h->json[i] = NULL;
	}
	for (size_t i = 0; i < h->nabsent_copies; i++)
		free(h->absent_copies[i]);
	free(h->absent_copies);
	h->absent_copies = NULL;
	h->nabsent_copies = 0;
	veles_table_free(h->resources);
	h->resources = NULL;
}

void veles_profile_free(veles_profile *h)
{
	if (!h)
		return;
	api_profile_forget(h);
	profile_free(h->p);
	free(h->name);
	free(h);
}

const char *veles_profile_name(const veles_profile *h)
{
	return h->name;
}

const char *veles_profile_id(const veles_profile *h)
{
	return h->id;
}

const char *veles_profile_version(const veles_profile *h)
{
	return h->version;
}

const char *veles_profile_get(const veles_profile *h, const char *field)
{
	const struct profile *p = h->p;

	if (strcmp(field, "type") == 0)
		return p->type;
	if (strcmp(field, "cmd") == 0)
		return p->cmd;
	if (strcmp(field, "args") == 0)
		return p->args;
	if (strcmp(field, "workload") == 0)
		return p->workload;
	if (strcmp(field, "collector") == 0)
		return p->collector;
	if (strcmp(field, "origin") == 0)
		return p->origin;
	return NULL;
}

const char *veles_profile_json(veles_profile *h, const char *part)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(json_parts); i++) {
		if (strcmp(part, json_parts[i]) != 0)
			continue;
		if (!h->json[i]) {
			profile_write_part(h->p, part, &b);
			h->json[i] = buf_detach(&b, NULL);
		}
		return h->json[i];
	}
	profile_write_part(h->p, part, &b); /* sets the message */
	buf_release(&b);
	return NULL;
}

size_t veles_profile_nresources(const veles_profile *h)
{
	return profile_nres(h->p);
}

/* A full-length absent mask for @c, or NULL when every cell has a value:
 * the profile's own when it covers the column, else a copy. */
static uint8_t *absent_mask(veles_profile *h, const struct column *c)
{
	uint8_t *copy;

	if (!c->absent || !memchr(c->absent, 1, c->absent_cap < c->len ? c->absent_cap : c->len))
		return NULL;
	if (c->absent_cap >= c->len)
		return c->absent;
	copy = xcalloc(c->len, 1);
	memcpy(copy, c->absent, c->absent_cap);
	h->absent_copies =
		xrealloc(h->absent_copies, (h->nabsent_copies + 1) * sizeof(*h->absent_copies));
	h->absent_copies[h->nabsent_copies++] = copy;
	return copy;
}

static void show_column(veles_profile *h, veles_table *t, const struct column *c,
			const uint32_t *index)
{
	struct table_col v = {.name = (char *)c->name, .len = c->len, .index = index};

	/* A profile without resources has no index to its types' cells. */
	if (!index && c != table_col(&h->p->res, c->name))
		v.len = 0;

	switch (c->kind) {
	case COL_I64:
		v.kind = c->narrow ? VELES_I32 : VELES_I64;
		v.data = c->narrow ? (void *)c->v.i32 : (void *)c->v.i64;
		break;
	case COL_F64:
		v.kind = VELES_F64;
		v.data = c->v.f64;
		break;
	default:
		v.kind = c->kind == COL_STR ? VELES_STR : VELES_JSON;
		v.data = c->v.id;
		break;
	}
	v.absent = absent_mask(h, c);
	table_add_view(t, &v);
}

const veles_table *veles_profile_resources(veles_profile *h)
{
	const struct profile *p = h->p;
	veles_table *t;

	if (h->resources)
		return h->resources;
	t = table_new(p->pool);
	t->nrows = profile_nres(p);
	/* The type's attributes first (uid, type, subtype, ...), as Perun
	 * lists a resource; "#key" is the reader's own. */
	for (size_t i = 0; i < p->types.ncols; i++) {
		const struct column *c = &p->types.cols[i];

		if (strcmp(c->name, "#key") != 0 && !table_col(&p->res, c->name))
			show_column(h, t, c, t->nrows ? p->res_type : NULL);
	}
	for (size_t i = 0; i < p->res.ncols; i++)
		show_column(h, t, &p->res.cols[i], NULL);
	h->resources = t;
	return t;
}

int veles_profile_folded(const veles_profile *h, const char *of, char **out, size_t *len)
{
	struct flame_opts o = {.of = of};
	struct buf b = BUF_INIT;
	int ret = flamegraph_folded(h->p, &o, &b);

	*out = NULL;
	if (len)
		*len = 0;
	if (ret < 0) {
		buf_release(&b);
		return ret;
	}
	buf_adds(&b, "");
	*out = buf_detach(&b, len);
	return 0;
}
