/* Reading the live /proc files; each stays open and is read again from 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "monitor/procs.h"
#include "util/common.h"

void mon_reader_init(struct mon_reader *r, const char *root, unsigned want)
{
	memset(r, 0, sizeof(*r));
	r->root = root;
	r->want = want;
	for (int i = 0; i < MT_COUNT; i++)
		r->fd[i] = -1;
}

/* Opens the file of table @t once; -1 when this machine has none. */
static int table_fd(struct mon_reader *r, int t)
{
	if (r->fd[t] == -1) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", r->root, mon_tabdefs[t].path);
		r->fd[t] = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd[t] < 0)
			r->fd[t] = -2;
	}
	return r->fd[t];
}

/* The whole file at @fd into r->buf, NUL-terminated; its length or -1. */
static ssize_t read_all(struct mon_reader *r, int fd)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		/* Room for a large read each time, not one page at a time. */
		if (r->cap - len < 4096)
			XGROW(r->buf, len + 65536, r->cap);
		n = pread(fd, r->buf + len, r->cap - len - 1, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
		/* /proc files are seq_files: they fill the buffer up to their
		 * end, so a short read is the end and saves a second call. */
		if ((size_t)n < r->cap - (len - (size_t)n) - 1)
			break;
	}
	r->buf[len] = '\0';
	return (ssize_t)len;
}

/* cpu and stat both come from /proc/stat, read just before for cpu. */
static bool stat_already_read(const struct mon_reader *r, int t)
{
	return t == MT_STAT && (r->want & (1u << MT_CPU)) && r->fd[MT_CPU] >= 0;
}

int mon_reader_read(struct mon_reader *r, struct mon_sample *s)
{
	for (int t = 0; t < MT_COUNT; t++) {
		int rc;

		if (!(r->want & (1u << t)))
			continue;
		mon_table_reset(&s->tab[t]);
		s->present |= 1u << t;
		if (t == MT_PROC) {
			if (!r->procs)
				r->procs = xcalloc(1, sizeof(*r->procs));
			rc = mon_procs_read(r->procs, r->root, r->procsel, &s->tab[t]);
			if (rc < 0)
				return rc;
			continue;
		}
		if (t == MT_FREQ) {
			mon_freq_read(&r->freq, r->root, &s->tab[t]);
			continue;
		}
		if (!stat_already_read(r, t)) {
			int fd = table_fd(r, t);

			if (fd < 0)
				continue;
			if (read_all(r, fd) < 0)
				return err_set(ERR_IO, "cannot read %s/%s: %s", r->root,
					       mon_tabdefs[t].path, strerror(errno));
		}
		rc = mon_tabdefs[t].parse(r->buf, &s->tab[t]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void mon_reader_close(struct mon_reader *r)
{
	for (int i = 0; i < MT_COUNT; i++)
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	if (r->procs)
		mon_procs_close(r->procs);
	free(r->procs);
	r->procs = NULL;
	mon_freq_close(&r->freq);
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}
