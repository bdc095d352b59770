#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/bgio.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

struct bgio {
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct buf slot; /* handed over, not yet written / read, not yet taken */
	bool full;	 /* @slot holds data for the other side */
	bool done;	 /* no more submissions */
	int err;
};

static void *write_loop(void *arg)
{
	struct bgio *w = arg;
	struct buf mine = BUF_INIT;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->full && !w->done)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->full)
			break;
		/* Take the data; the empty buffer goes back for reuse. */
		struct buf t = w->slot;

		w->slot = mine;
		mine = t;
		w->full = false;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);

		int err = write_in_full(w->fd, mine.data, mine.len) < 0 ? errno : 0;

		buf_reset(&mine);
		pthread_mutex_lock(&w->lock);
		if (err && !w->err)
			w->err = err;
	}
	pthread_mutex_unlock(&w->lock);
	buf_release(&mine);
	return NULL;
}

struct bgio *bgio_writer(int fd)
{
	struct bgio *io = xcalloc(1, sizeof(*io));

	io->fd = fd;
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->cond, NULL);
	if (pthread_create(&io->thread, NULL, write_loop, io) != 0) {
		pthread_mutex_destroy(&io->lock);
		pthread_cond_destroy(&io->cond);
		free(io);
		return NULL;
	}
	return io;
}

void bgio_submit(struct bgio *w, struct buf *b)
{
	struct buf t;

	pthread_mutex_lock(&w->lock);
	while (w->full)
		pthread_cond_wait(&w->cond, &w->lock);
	t = w->slot;
	w->slot = *b;
	*b = t;
	buf_reset(b);
	w->full = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

int bgio_finish(struct bgio *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	err = w->err;
	buf_release(&w->slot);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
	return err;
}
