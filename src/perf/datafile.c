/* Writing and loading the sampling file of docs/perf-data.md. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/datafile.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

int perf_data_create(struct perf_data_writer *w, const char *path, const struct perf_data_header *h,
		     const char *event)
{
	w->path = xstrdup(path);
	w->tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	w->bytes = 0;
	w->f = fopen(w->tmp, "wbe");
	if (!w->f)
		return err_set(ERR_IO, "cannot write %s: %s", w->tmp, strerror(errno));
	if (perf_data_write(w, h, sizeof(*h)) < 0 || perf_data_write(w, event, h->name_len) < 0)
		return ERR_IO;
	return 0;
}

int perf_data_write(struct perf_data_writer *w, const void *rec, size_t len)
{
	if (fwrite(rec, 1, len, w->f) != len)
		return err_set(ERR_IO, "cannot write %s: %s", w->tmp, strerror(errno));
	w->bytes += len;
	return 0;
}

int perf_data_write_tpformat(struct perf_data_writer *w, const char *system, const char *format)
{
	size_t slen = strlen(system) + 1, flen = strlen(format) + 1;
	size_t size = (sizeof(struct perf_event_header) + slen + flen + 7) & ~(size_t)7;
	struct perf_event_header h = {.type = PERF_RECORD_VELES_TPFORMAT, .size = (uint16_t)size};
	unsigned char *rec;
	int ret;

	if (size > UINT16_MAX)
		return err_set(ERR_INVALID, "the format of tracepoint %s is too long to record",
			       system);
	rec = xcalloc(1, size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), system, slen);
	memcpy(rec + sizeof(h) + slen, format, flen);
	ret = perf_data_write(w, rec, size);
	free(rec);
	return ret;
}

int perf_data_close(struct perf_data_writer *w, bool ok)
{
	int ret = 0;

	if (w->f) {
		if (ok && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0))
			ret = err_set(ERR_IO, "cannot write %s: %s", w->tmp, strerror(errno));
		fclose(w->f);
		w->f = NULL;
		if (ok && ret == 0 && rename(w->tmp, w->path) != 0)
			ret = err_set(ERR_IO, "cannot write %s: %s", w->path, strerror(errno));
		if (!ok || ret < 0)
			unlink(w->tmp);
	}
	free(w->path);
	free(w->tmp);
	w->path = w->tmp = NULL;
	return ret;
}

static int check_header(const char *path, struct perf_data *d)
{
	if (d->len < sizeof(d->h))
		return err_set(ERR_PARSE, "%s: not a veles record file (too short)", path);
	memcpy(&d->h, d->buf, sizeof(d->h));
	if (memcmp(d->h.magic, PERF_DATA_MAGIC, 8) != 0)
		return err_set(ERR_PARSE, "%s: not a veles record file", path);
	if (d->h.version != PERF_DATA_VERSION)
		return err_set(ERR_PARSE, "%s: version %u of the record file is not known", path,
			       d->h.version);
	if (d->h.header_size < sizeof(d->h) || d->h.header_size > d->len ||
	    d->h.name_len != d->h.header_size - sizeof(d->h))
		return err_set(ERR_PARSE, "%s: damaged header", path);
	d->event = xstrndup((const char *)d->buf + sizeof(d->h), d->h.name_len);
	d->records = d->h.header_size;
	return 0;
}

int perf_data_load(const char *path, struct perf_data *d)
{
	struct buf b = BUF_INIT;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = file_read_all(path, &b);
	if (ret < 0) {
		buf_release(&b);
		return ret;
	}
	d->buf = (unsigned char *)buf_detach(&b, &d->len);
	ret = check_header(path, d);
	if (ret < 0)
		perf_data_free(d);
	return ret;
}

void perf_data_free(struct perf_data *d)
{
	free(d->buf);
	free(d->event);
	memset(d, 0, sizeof(*d));
}
