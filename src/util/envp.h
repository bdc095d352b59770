/*
 * Environments for commands we start, built without touching our own:
 * library code never calls setenv (another thread of the front end may be
 * reading the environment, and the next command would inherit it); it
 * hands a command its variables through posix_spawn's envp instead.
 */
#ifndef UTIL_ENVP_H
#define UTIL_ENVP_H

/*
 * A copy of @base (NULL: our environ) with each "NAME=VALUE" of @over
 * (NULL-terminated; NULL: none) set, replacing the variable of the same
 * name; of two in @over with one name the later wins. NULL-terminated;
 * free with envp_free.
 */
char **envp_merge(char *const *base, char *const *over);
void envp_free(char **envp);
/* The value of @name in @envp (NULL: our environ), or NULL. */
const char *envp_get(char *const *envp, const char *name);

#endif
