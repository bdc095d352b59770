/* Runs in progress, for their readers (live.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/live.h"
#include "util/xalloc.h"

void live_registry_init(struct live_registry *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->mu, NULL);
}

void live_registry_free(struct live_registry *r)
{
	for (size_t i = 0; i < r->n; i++)
		live_put(r->v[i]);
	free(r->v);
	pthread_mutex_destroy(&r->mu);
}

void live_add(struct live_registry *r, const char *id)
{
	struct live *l = xcalloc(1, sizeof(*l));

	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	snprintf(l->id, sizeof(l->id), "%s", id);
	snprintf(l->state, sizeof(l->state), "queued");
	l->refs = 1;
	pthread_mutex_lock(&r->mu);
	r->v = xgrow(r->v, sizeof(*r->v), r->n + 1, &r->cap);
	r->v[r->n++] = l;
	pthread_mutex_unlock(&r->mu);
}

struct live *live_get(struct live_registry *r, const char *id)
{
	struct live *l = NULL;

	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->n && !l; i++)
		if (strcmp(r->v[i]->id, id) == 0)
			l = r->v[i];
	if (l) {
		pthread_mutex_lock(&l->mu);
		l->refs++;
		pthread_mutex_unlock(&l->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return l;
}

void live_put(struct live *l)
{
	int left;

	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	left = --l->refs;
	pthread_mutex_unlock(&l->mu);
	if (left)
		return;
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l->hot);
	free(l);
}

void live_finish(struct live_registry *r, const char *id, const char *state)
{
	struct live *l = NULL;

	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i]->id, id) == 0) {
			l = r->v[i];
			r->v[i] = r->v[--r->n];
			break;
		}
	pthread_mutex_unlock(&r->mu);
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	snprintf(l->state, sizeof(l->state), "%s", state);
	l->over = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	live_put(l);
}

void live_wake_all(struct live_registry *r)
{
	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->n; i++) {
		pthread_mutex_lock(&r->v[i]->mu);
		pthread_cond_broadcast(&r->v[i]->cv);
		pthread_mutex_unlock(&r->v[i]->mu);
	}
	pthread_mutex_unlock(&r->mu);
}

void live_set_state(struct live *l, const char *state)
{
	pthread_mutex_lock(&l->mu);
	snprintf(l->state, sizeof(l->state), "%s", state);
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void live_add_rows(struct live *l, uint64_t rows)
{
	pthread_mutex_lock(&l->mu);
	l->rows += rows;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void live_add_output(struct live *l, bool err, uint64_t bytes)
{
	pthread_mutex_lock(&l->mu);
	if (err)
		l->err_bytes += bytes;
	else
		l->out_bytes += bytes;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void live_set_hot(struct live *l, char *json, uint64_t samples)
{
	pthread_mutex_lock(&l->mu);
	free(l->hot);
	l->hot = json;
	l->hot_version++;
	l->samples = samples;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}
