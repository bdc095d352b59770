/* libveles: the views of a profile (view/views.h), listed and rendered
 * into memory as `veles show` draws them. */
#include <string.h>

#include "api/api.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/views.h"

int veles_views(const veles_profile *h, veles_table **out)
{
	size_t n, row = 0;
	const struct view_def *v = view_defs(&n);
	veles_table *t = table_new(NULL);
	size_t name = table_add(t, "name", VELES_STR), about = table_add(t, "about", VELES_STR);
	size_t picture = table_add(t, "picture", VELES_I64);

	for (size_t i = 0; i < n; i++) {
		if (h && !v[i].applies_to(h->p))
			continue;
		table_set_str(t, name, row, v[i].name);
		table_set_str(t, about, row, v[i].about);
		table_set_i64(t, picture, row, (v[i].flags & VIEW_PICTURE) != 0);
		row++;
	}
	table_finish(t);
	*out = t;
	return 0;
}

/* "key=value" or a bare "key" (a flag: "stacked" is "stacked=true"). */
static int set_option(struct view_args *a, const char *opt)
{
	const char *eq = strchr(opt, '=');
	char key[64];

	if (!eq)
		return view_args_set(a, opt, "true");
	if ((size_t)(eq - opt) >= sizeof(key))
		return err_set(ERR_INVALID, "unknown view option '%.*s'", (int)(eq - opt), opt);
	memcpy(key, opt, (size_t)(eq - opt));
	key[eq - opt] = '\0';
	return view_args_set(a, key, eq + 1);
}

int veles_render_view(const veles_profile *h, const char *view, int target,
		      const char *const *options, char **out, size_t *len)
{
	const struct view_def *v = view_find(view ? view : "summary");
	struct view_args a;
	struct buf b = BUF_INIT;
	int ret = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (!v)
		return err_set(ERR_NOTFOUND, "no view '%s'", view);
	if (target < VELES_VIEW_TEXT || target > VELES_VIEW_HTML)
		return err_set(ERR_INVALID, "no view target %d", target);
	view_args_init(&a, v);
	a.name = h->name;
	for (size_t i = 0; options && options[i] && ret == 0; i++)
		ret = set_option(&a, options[i]);
	if (ret == 0)
		ret = v->render(h->p, &a, (enum view_target)target, &b);
	if (ret < 0) {
		buf_release(&b);
		return ret;
	}
	buf_adds(&b, "");
	*out = buf_detach(&b, len);
	return 0;
}
