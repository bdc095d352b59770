/*
 * veles show PROFILE heapmap on a terminal: the frames of view/heapmap.h
 * in curses, the arrow keys moving through the snapshots (docs/views.md).
 * Elsewhere the view is text (view/heapmap_view.c).
 */
#include <curses.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/heapmap.h"
#include "view/views.h"

#define LABEL 20 /* "0x0000555555559000 |" */
/* ---- curses ----
 *
 * libncursesw is opened when the interactive view starts, not linked: every
 * other command starts faster without it. <curses.h> gives the types and
 * constants; the functions come from this table.
 */

static struct {
	WINDOW *(*initscr_)(void);
	int (*endwin_)(void);
	int (*cbreak_)(void);
	int (*noecho_)(void);
	int (*keypad_)(WINDOW *, bool);
	int (*curs_set_)(int);
	bool (*has_colors_)(void);
	int (*start_color_)(void);
	int (*init_pair_)(short, short, short);
	int (*werase_)(WINDOW *);
	int (*wmove_)(WINDOW *, int, int);
	int (*waddnstr_)(WINDOW *, const char *, int);
	int (*waddch_)(WINDOW *, chtype);
	int (*wattrset_)(WINDOW *, int);
	int (*wrefresh_)(WINDOW *);
	int (*wgetch_)(WINDOW *);
	int (*getmaxx_)(const WINDOW *);
	int (*getmaxy_)(const WINDOW *);
} nc;

static int curses_load(void)
{
	static const char *const names[] = {
		"initscr",    "endwin",	     "cbreak",	  "noecho", "keypad",  "curs_set",
		"has_colors", "start_color", "init_pair", "werase", "wmove",   "waddnstr",
		"waddch",     "wattrset",    "wrefresh",  "wgetch", "getmaxx", "getmaxy"};
	void *h = dlopen("libncursesw.so.6", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return err_set(ERR_NOTFOUND, "the interactive heapmap needs libncursesw.so.6 "
					     "(use --text for one frame as text)");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		void *f = dlsym(h, names[i]);

		if (!f)
			return err_set(ERR_NOTFOUND, "libncursesw.so.6 has no %s", names[i]);
		memcpy((char *)&nc + i * sizeof(f), &f, sizeof(f));
	}
	return 0;
}

static void put_line(WINDOW *w, int y, const char *text, size_t len)
{
	nc.wmove_(w, y, 0);
	nc.waddnstr_(w, text, (int)len);
}

static void draw(WINDOW *w, const struct heapmap *h, int64_t snap)
{
	struct heapmap_frame f;
	struct buf line = BUF_INIT;
	bool color = nc.has_colors_();

	heapmap_frame(h, snap, &f);
	nc.werase_(w);
	heapmap_frame_header(h, snap, &f, &line);
	put_line(w, 0, line.data, line.len);
	for (int r = 0; r < h->rows; r++) {
		line.len = 0;
		buf_addf(&line, "0x%016" PRIx64 " |", heapmap_row_addr(h, r));
		put_line(w, r + 2, line.data, line.len);
		for (int c = 0; c < h->cols; c++) {
			unsigned char lv = f.level[(size_t)r * (size_t)h->cols + (size_t)c];

			nc.wattrset_(w, color && lv ? (int)COLOR_PAIR(lv) : 0);
			nc.waddch_(w, (chtype)heapmap_level_char[lv]);
		}
		nc.wattrset_(w, 0);
		nc.waddch_(w, '|');
	}
	line.len = 0;
	buf_adds(&line, "left/right: snapshot, home/end: first/last, p: peak, q: quit;"
			" .:+# up to 1/4, 1/2, 3/4, more used");
	put_line(w, h->rows + 2, line.data, line.len);
	nc.wrefresh_(w);
	buf_release(&line);
	free(f.level);
}

static WINDOW *curses_start(void)
{
	WINDOW *w;

	cli_unguard_stdout();
	w = nc.initscr_();

	nc.cbreak_();
	nc.noecho_();
	nc.keypad_(w, TRUE);
	nc.curs_set_(0);
	if (nc.has_colors_()) {
		nc.start_color_();
		nc.init_pair_(1, COLOR_BLUE, COLOR_BLACK);
		nc.init_pair_(2, COLOR_GREEN, COLOR_BLACK);
		nc.init_pair_(3, COLOR_YELLOW, COLOR_BLACK);
		nc.init_pair_(4, COLOR_RED, COLOR_BLACK);
	}
	return w;
}

/* The new snapshot after @key, or INT64_MIN to quit. */
static int64_t step(const struct heapmap *h, int key, int64_t snap)
{
	switch (key) {
	case KEY_LEFT:
	case 'h':
		return snap > h->first ? snap - 1 : snap;
	case KEY_RIGHT:
	case 'l':
		return snap < h->last ? snap + 1 : snap;
	case KEY_HOME:
	case 'g':
		return h->first;
	case KEY_END:
	case 'G':
		return h->last;
	case 'p':
		return heapmap_peak(h);
	case 'q':
	case 27:
		return INT64_MIN;
	}
	return snap;
}

static int interactive(struct heapmap *h, int64_t snap)
{
	WINDOW *w;

	if (curses_load() < 0)
		return -1;
	w = curses_start();
	while (snap != INT64_MIN) {
		int key;

		heapmap_layout(h, nc.getmaxx_(w) - LABEL - 1, nc.getmaxy_(w) - 3);
		draw(w, h, snap);
		key = nc.wgetch_(w);
		if (key != KEY_RESIZE)
			snap = step(h, key, snap);
	}
	nc.endwin_();
	return 0;
}

int show_heapmap_tty(const struct profile *p, const struct show_opts *o)
{
	struct heapmap h;
	int64_t snap;
	int ret = heapmap_build(p, &h);

	if (ret < 0) {
		fprintf(stderr, "veles show: %s\n", err_msg());
		return -1;
	}
	ret = heapmap_snapshot(&h, o->snapshot, &snap);
	if (ret == 0)
		ret = interactive(&h, snap);
	if (ret < 0)
		fprintf(stderr, "veles show: %s\n", err_msg());
	heapmap_release(&h);
	return ret < 0 ? -1 : 0;
}
