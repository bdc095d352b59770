/* Hot functions and flame graphs as JSON (hot.h). */
#include <stdlib.h>
#include <string.h>

#include "perf/session.h"
#include "serve/hot.h"
#include "util/strmap.h"
#include "util/xalloc.h"

void hot_json(const struct perf_report *r, size_t limit, struct buf *out)
{
	size_t n, *top = perf_report_top(r, limit, &n);

	buf_addf(out, "{\"samples\":%llu,\"total\":%llu,\"rows\":[", (unsigned long long)r->samples,
		 (unsigned long long)r->total);
	for (size_t k = 0; k < n; k++) {
		const struct perf_report_entry *e = &r->v[top[k]];

		buf_addf(out, "%s{\"overhead\":%.2f,\"samples\":%llu,\"command\":", k ? "," : "",
			 perf_report_pct(e->period, r->total), (unsigned long long)e->samples);
		buf_add_json_str(out, e->comm, strlen(e->comm));
		buf_adds(out, ",\"object\":");
		buf_add_json_str(out, e->dso, strlen(e->dso));
		buf_adds(out, ",\"symbol\":");
		buf_add_json_str(out, e->sym, strlen(e->sym));
		buf_addf(out, ",\"kernel\":%s}", e->kernel ? "true" : "false");
	}
	buf_adds(out, "]}");
	free(top);
}

/* The flame graph's tree: each node's children by name. */
struct node {
	char *name;
	unsigned long long v;
	struct strmap kids;
	struct node **c;
	size_t nc, cap;
};

/* A browser draws a few thousand boxes well; deeper or wider parts of a
 * huge recording are cut (their samples still count in their parents). */
enum { FLAME_MAX_NODES = 20000, FLAME_MAX_DEPTH = 256 };

static struct node *child(struct node *p, const char *name, size_t len, size_t *nodes)
{
	char *key = xstrndup(name, len);
	size_t i = strmap_get(&p->kids, key);

	if (i != SIZE_MAX) {
		free(key);
		return p->c[i];
	}
	if (*nodes >= FLAME_MAX_NODES) {
		free(key);
		return NULL;
	}
	struct node *n = xcalloc(1, sizeof(*n));

	n->name = key;
	strmap_intern(&p->kids, key, NULL);
	p->c = xgrow(p->c, sizeof(*p->c), p->nc + 1, &p->cap);
	p->c[p->nc++] = n;
	(*nodes)++;
	return n;
}

static void insert(struct node *root, const char *stack, unsigned long long count, size_t *nodes)
{
	struct node *at = root;
	size_t depth = 0;

	root->v += count;
	for (const char *p = stack; at && depth < FLAME_MAX_DEPTH; depth++) {
		size_t len = strcspn(p, ";");

		at = child(at, p, len, nodes);
		if (at)
			at->v += count;
		if (!p[len])
			break;
		p += len + 1;
	}
}

static int by_count(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void emit(struct node *n, struct buf *out)
{
	buf_adds(out, "{\"n\":");
	buf_add_json_str(out, n->name, strlen(n->name));
	buf_addf(out, ",\"v\":%llu", n->v);
	if (n->nc) {
		qsort(n->c, n->nc, sizeof(*n->c), by_count);
		buf_adds(out, ",\"c\":[");
		for (size_t i = 0; i < n->nc; i++) {
			if (i)
				buf_addc(out, ',');
			emit(n->c[i], out);
		}
		buf_addc(out, ']');
	}
	buf_addc(out, '}');
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nc; i++)
		node_free(n->c[i]);
	free(n->c);
	strmap_free(&n->kids);
	free(n->name);
	free(n);
}

void flame_json(const struct perf_folded *f, struct buf *out)
{
	struct node *root = xcalloc(1, sizeof(*root));
	size_t n, nodes = 0;
	const char **keys = perf_folded_sorted(f, &n);

	root->name = xstrdup("all");
	for (size_t i = 0; i < n; i++)
		insert(root, keys[i], (unsigned long long)perf_folded_count(f, keys[i]), &nodes);
	emit(root, out);
	node_free(root);
	free(keys);
}

struct both {
	struct perf_report r;
	struct perf_folded f;
};

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct both *b = arg;

	perf_report_add(&b->r, smp);
	perf_folded_add(&b->f, smp);
}

int hot_from_file(const char *path, size_t limit, struct buf *hot, struct buf *flame)
{
	struct perf_session *s;
	struct both b = {0};
	uint64_t lost;
	int ret = perf_session_open(path, &s);

	if (ret < 0)
		return ret;
	perf_session_samples(s, on_sample, &b, &lost);
	hot_json(&b.r, limit, hot);
	flame_json(&b.f, flame);
	perf_report_free(&b.r);
	perf_folded_free(&b.f);
	perf_session_free(s);
	return 0;
}
