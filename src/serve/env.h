/*
 * A workload's environment as the seed's workload widget takes it:
 * `COUNT=7 THREAD_NUM=12`, assignments as a shell writes them before a
 * command, values optionally quoted ('...' or "..." with \" and \\).
 */
#ifndef SERVE_ENV_H
#define SERVE_ENV_H

#include <stddef.h>

/* Checks @spec: ERR_PARSE with a message naming what is wrong. */
int env_check(const char *spec);
/* The server's environment with @spec's assignments over it, as envp
 * (NULL-terminated; free with env_free). */
int env_build(const char *spec, char ***envp);
void env_free(char **envp);

#endif
