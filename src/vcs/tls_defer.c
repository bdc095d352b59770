/*
 * Deferred TLS certificates.
 *
 * libgit2 1.5 as Debian builds it (with mbedTLS) parses the whole system CA
 * bundle inside git_libgit2_init(): 7 ms of every veles command on our
 * machines, more than `git log --oneline` over 1,000 commits takes, and a
 * fixed cost that `collect time` would add to what it measures. Only push
 * and pull over HTTPS need certificates. So the executable defines the
 * mbedTLS function libgit2 calls for it (ELF symbol interposition: calls
 * from libgit2 bind to the executable's definition first): until
 * vcs_tls_enable() is called it only remembers the bundle's path; after
 * it, it hands over to the real function.
 *
 * With a libgit2 built on OpenSSL or another backend nothing calls this,
 * and nothing changes.
 */
#include <dlfcn.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "vcs/vcs.h"

struct mbedtls_x509_crt;

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);

static bool tls_enabled;
static char *deferred_file;

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path)
{
	int (*real)(struct mbedtls_x509_crt *, const char *);

	if (!tls_enabled) {
		free(deferred_file);
		deferred_file = path ? xstrdup(path) : NULL;
		return 0;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
	/* -0x2900 is MBEDTLS_ERR_X509_FILE_IO_ERROR. */
	return real ? real(chain, path) : -0x2900;
}

void vcs_tls_enable(void)
{
	if (tls_enabled)
		return;
	tls_enabled = true;
	if (deferred_file)
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, deferred_file, NULL);
}
