/* Starting the measured command: fork now, exec when the counters are on. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/child.h"
#include "util/error.h"

extern char **environ;

/*
 * Only async-signal-safe calls here: the parent may have other threads.
 * The chdir is the child's own (it has its own current directory from the
 * fork on); ours never changes. -1 with errno set when a step fails.
 */
static int child_setup(const struct perf_child_io *io)
{
	sigset_t none;
	struct sigaction dfl;

	if (io->new_group)
		setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &dfl, NULL);
	if (io->in_fd >= 0 && dup2(io->in_fd, 0) < 0)
		return -1;
	if (io->out_fd >= 0 && dup2(io->out_fd, 1) < 0)
		return -1;
	if (io->err_fd >= 0 && dup2(io->err_fd, 2) < 0)
		return -1;
	if (io->cwd && chdir(io->cwd) < 0) /* lint-library: in the forked child */
		return -1;
	return 0;
}

static void child_main(int go, int err, char **argv, const struct perf_child_io *io)
{
	char b;
	int e;

	if (read(go, &b, 1) != 1)
		_exit(127);
	if (io) {
		if (child_setup(io) == 0)
			execvpe(argv[0], argv, io->envp ? io->envp : environ);
	} else {
		execvp(argv[0], argv);
	}
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int perf_child_fork_io(struct perf_child *ch, char **argv, const struct perf_child_io *io)
{
	int go[2], err[2];

	ch->pid = 0;
	ch->go_fd = ch->err_fd = -1;
	ch->group = io && io->new_group;
	if (pipe2(go, O_CLOEXEC) < 0)
		return err_set(ERR_CHILD, "cannot make a pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return err_set(ERR_CHILD, "cannot make a pipe: %s", strerror(errno));
	}
	ch->pid = fork();
	if (ch->pid == 0) {
		close(go[1]);
		close(err[0]);
		child_main(go[0], err[1], argv, io);
	}
	close(go[0]);
	close(err[1]);
	ch->go_fd = go[1];
	ch->err_fd = err[0];
	if (ch->pid < 0) {
		ch->pid = 0;
		return err_set(ERR_CHILD, "cannot fork: %s", strerror(errno));
	}
	/* Also here, so a kill that comes before the child runs finds the group. */
	if (ch->group)
		setpgid(ch->pid, ch->pid);
	return 0;
}

int perf_child_fork(struct perf_child *ch, char **argv)
{
	return perf_child_fork_io(ch, argv, NULL);
}

int perf_child_start(struct perf_child *ch, const char *argv0)
{
	int e;
	ssize_t n;

	if (write(ch->go_fd, "g", 1) != 1)
		return err_set(ERR_CHILD, "cannot start %s: %s", argv0, strerror(errno));
	close(ch->go_fd);
	ch->go_fd = -1;
	do
		n = read(ch->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err_fd);
	ch->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(ch->pid, NULL, 0);
		ch->pid = 0;
		return err_set(ERR_CHILD, "cannot run %s: %s", argv0, strerror(e));
	}
	return 0;
}

void perf_child_kill(const struct perf_child *ch, int sig)
{
	if (ch->pid <= 0)
		return;
	if (!ch->group || kill(-ch->pid, sig) < 0)
		kill(ch->pid, sig);
}

void perf_child_release(struct perf_child *ch)
{
	if (ch->pid > 0) {
		perf_child_kill(ch, SIGKILL);
		waitpid(ch->pid, NULL, 0);
		ch->pid = 0;
	}
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	if (ch->err_fd >= 0)
		close(ch->err_fd);
	ch->go_fd = ch->err_fd = -1;
}
