/*
 * The bounds profile (bprofile.h). Its uid numbers follow the profiles the
 * seed shows, which Perun wrote from Loopus's output, so that a profile of
 * ours and one of theirs name the same loops alike: for a loop, "line" is
 * where it starts and "column" the line where it ends (Loopus prints
 * "line 34 / 42"); for a function's total, line and column of its name
 * counted from 0, as Perun looks them up.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/bound.h"
#include "collect/bounds/bprofile.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

struct profile *bprofile_new(void)
{
	struct profile *p = profile_new();

	p->layout = LAYOUT_TYPED;
	p->type = xstrdup("bound");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("bound"), xstrdup("iterations")};
	p->nunits = 1;
	return p;
}

static void add_one(struct profile *p, const char *source, const char *func, int line, int col,
		    const char *type, const struct sym_ctx *sx, const struct poly *bound,
		    const char *reason)
{
	struct buf uid = BUF_INIT, text = BUF_INIT, cls = BUF_INIT;
	struct attr a[6];
	size_t n = 0;

	buf_addf(&uid, "{\"line\":%d,\"column\":%d,\"source\":", line, col);
	buf_add_json_str(&uid, source, strlen(source));
	buf_adds(&uid, ",\"function\":");
	buf_add_json_str(&uid, func, strlen(func));
	buf_addc(&uid, '}');
	sym_print(sx, bound, &text);
	sym_class_print(sym_class_of(sx, bound), &cls);
	a[n++] = (struct attr){.name = "uid", .kind = COL_JSON, .s = buf_str(&uid)};
	a[n++] = (struct attr){.name = "type", .kind = COL_STR, .s = type};
	a[n++] = (struct attr){.name = "bound", .kind = COL_STR, .s = buf_str(&text)};
	a[n++] = (struct attr){.name = "time", .kind = COL_STR, .s = "0.0"};
	a[n++] = (struct attr){.name = "class", .kind = COL_STR, .s = buf_str(&cls)};
	if (reason)
		a[n++] = (struct attr){.name = "reason", .kind = COL_STR, .s = reason};
	profile_res_add(p, profile_type_add(p, a, n));
	buf_release(&uid);
	buf_release(&text);
	buf_release(&cls);
}

void bprofile_add(struct profile *p, const char *source, const struct func_bounds *fb)
{
	for (int i = 0; i < fb->nloops; i++) {
		const struct loop_bound *l = &fb->loops[i];

		add_one(p, source, fb->name, l->src.line, l->src.end_line, "local bound", fb->sx,
			l->bound, l->reason);
	}
	add_one(p, source, fb->name, fb->line - 1, fb->col - 1, "total bound", fb->sx, fb->total,
		fb->total_reason);
}
