/* src/collect/perf: a command's environment, output and exit status; a
 * measurement of an attached process stopped from another thread; records
 * followed while a recording is made. Counts task-clock (a software event). */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/perf/pcount.h"
#include "collect/perf/psample.h"
#include "perf/perf.h"
#include "testutil.h"
#include "util/error.h"

static bool can_count(void)
{
	struct perf_event_attr a;

	return perf_event_parse("task-clock", &a) == 0 && perf_probe(&a) == 0;
}

struct seen {
	size_t calls;
	double last_t, value;
};

static void on_count(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
		     double span_ns, double t)
{
	struct seen *s = arg;

	assert_int_equal(cs->n, 1);
	assert_true(span_ns > 0);
	s->calls++;
	s->last_t = t;
	s->value += v[0].value;
}

static void test_command_io(void **state)
{
	char *env[] = {"COUNT=7", "PATH=/usr/bin:/bin", NULL};
	char *argv[] = {"/bin/sh", "-c", "echo out $COUNT; echo err >&2; exit 3", NULL};
	int out[2], err[2];
	struct pcount c = {0};
	struct seen s = {0};
	char buf[64] = "";
	ssize_t n;

	UNUSED(state);
	if (!can_count())
		skip();
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	struct ptarget_spec spec = {.argv = argv,
				    .argc = 3,
				    .use_io = true,
				    .io = {.envp = env,
					   .out_fd = out[1],
					   .err_fd = err[1],
					   .in_fd = -1,
					   .new_group = true},
				    .stop_fd = -1};
	assert_int_equal(pcount_events(&c, "task-clock"), 0);
	assert_int_equal(pcount_open(&c, &spec), 0);
	close(out[1]);
	close(err[1]);
	assert_int_equal(pcount_start(&c), 0);
	assert_int_equal(pcount_run(&c, 0, on_count, &s), 0);
	assert_int_equal(s.calls, 1); /* the totals, once */
	assert_true(s.value > 0);
	assert_int_equal(ptarget_exit_status(&c.target), 3);
	n = read(out[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "out 7\n");
	n = read(err[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	assert_string_equal(buf, "err\n");
	close(out[0]);
	close(err[0]);
	pcount_free(&c);
}

static void test_command_missing(void **state)
{
	char *argv[] = {"./no-such-program-here", NULL};
	struct ptarget_spec spec = {.argv = argv, .argc = 1, .stop_fd = -1};
	struct pcount c = {0};

	UNUSED(state);
	if (!can_count())
		skip();
	assert_int_equal(pcount_events(&c, "task-clock"), 0);
	assert_int_equal(pcount_open(&c, &spec), 0);
	assert_int_equal(pcount_start(&c), ERR_CHILD);
	assert_non_null(strstr(err_msg(), "cannot run ./no-such-program-here"));
	pcount_free(&c);
	/* A bad event is named. */
	assert_int_equal(pcount_events(&(struct pcount){0}, "no-such-event"), ERR_NOTFOUND);
}

struct stopper {
	volatile sig_atomic_t *flag;
	int fd;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	uint64_t one = 1;

	usleep(120 * 1000);
	*s->flag = 1;
	if (write(s->fd, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

/* Attached to a process that would run for a minute: another thread's stop
 * ends the count at once (no signal reaches the counting thread). */
static void test_attached_stop(void **state)
{
	volatile sig_atomic_t flag = 0;
	struct pcount c = {0};
	struct seen s = {0};
	pthread_t th;
	pid_t pid;

	UNUSED(state);
	if (!can_count())
		skip();
	pid = fork();
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	struct stopper st = {&flag, eventfd(0, EFD_CLOEXEC)};
	struct ptarget_spec spec = {.pid = pid, .stop = &flag, .stop_fd = st.fd};
	assert_int_equal(pcount_events(&c, "task-clock"), 0);
	assert_int_equal(pcount_open(&c, &spec), 0);
	assert_int_equal(pcount_start(&c), 0);
	pthread_create(&th, NULL, stop_later, &st);
	assert_int_equal(pcount_run(&c, 10, on_count, &s), 0);
	pthread_join(th, NULL);
	assert_true(s.calls >= 2);
	assert_true(c.elapsed < 30); /* stopped, not the minute */
	assert_true(ptarget_stopped(&c.target));
	pcount_free(&c);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(st.fd);
}

struct followed {
	size_t records, ticks;
};

static void on_record(void *arg, const void *rec, size_t len)
{
	struct followed *f = arg;

	assert_true(len >= sizeof(struct perf_event_header));
	assert_int_equal(((const struct perf_event_header *)rec)->size, len);
	f->records++;
}

static void on_tick(void *arg)
{
	((struct followed *)arg)->ticks++;
}

static void test_sample_followed(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL};
	struct psample_opts o = {.events = "task-clock", .freq = 1000};
	struct psample p = {0};
	struct followed f = {0};
	struct psample_hooks hooks = {on_record, on_tick, &f, 20};
	char *path = xasprintf("%s/follow.data", tmp_base);
	struct ptarget_spec spec = {.argv = argv, .argc = 3, .stop_fd = -1};

	UNUSED(state);
	if (!can_count())
		skip();
	assert_int_equal(psample_events(&p, &o), 0);
	assert_int_equal(psample_create(&p, path), 0);
	assert_int_equal(psample_open(&p, &spec), 0);
	assert_int_equal(psample_start(&p), 0);
	assert_int_equal(psample_run(&p, &hooks), 0);
	psample_close(&p);
	assert_int_equal(psample_commit(&p, true), 0);
	assert_true(f.ticks >= 1);
	assert_true(f.records >= p.s.samples && f.records > 0); /* samples, comm, mmap... */
	assert_int_equal(access(path, R_OK), 0);
	psample_free(&p);
	/* Several events must all be tracepoints: a usage error. */
	struct psample q = {0};
	o.events = "task-clock,page-faults";
	assert_int_equal(psample_events(&q, &o), ERR_PARSE);
	psample_free(&q);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_io),
		cmocka_unit_test(test_command_missing),
		cmocka_unit_test(test_attached_stop),
		cmocka_unit_test(test_sample_followed),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
