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
 * The same goes for the other start-up costs of its TLS and SSH
 * transports: filling the HAVEGE entropy source's state (a timing loop,
 * about 10% of the instructions `veles collect time` runs outside the
 * commands it times), seeding mbedTLS's random generator (a loop over the
 * cycle counter) and libssh2_init(), which initialises OpenSSL. All are put
 * off until vcs_tls_enable(); libssh2 would also initialise itself when a
 * session is made. Nothing reads the entropy source before the seeding,
 * which vcs_tls_enable() does after filling it.
 *
 * With a libgit2 built on OpenSSL or another backend nothing calls these,
 * and nothing changes.
 */
#include "vcs/git_lazy.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "vcs/vcs.h"

struct mbedtls_x509_crt;

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);
int mbedtls_ctr_drbg_seed(void *ctx, int (*f_entropy)(void *, unsigned char *, size_t),
			  void *p_entropy, const unsigned char *custom, size_t len);
int libssh2_init(int flags);
void mbedtls_havege_init(void *hs);
void mbedtls_havege_free(void *hs);

static bool tls_enabled;
static char *deferred_file;

/* The seeding libgit2 asked for, done when TLS is first needed. */
static struct {
	bool pending;
	void *ctx;
	int (*f_entropy)(void *, unsigned char *, size_t);
	void *p_entropy;
	unsigned char *custom;
	size_t len;
} deferred_seed;
static bool ssh_pending;
static int ssh_flags;
static void *deferred_havege; /* the HAVEGE state to fill */

int mbedtls_ctr_drbg_seed(void *ctx, int (*f_entropy)(void *, unsigned char *, size_t),
			  void *p_entropy, const unsigned char *custom, size_t len)
{
	int (*real)(void *, int (*)(void *, unsigned char *, size_t), void *, const unsigned char *,
		    size_t);

	if (!tls_enabled) {
		free(deferred_seed.custom);
		deferred_seed.custom = len ? xmalloc(len) : NULL;
		if (len)
			memcpy(deferred_seed.custom, custom, len);
		deferred_seed.ctx = ctx;
		deferred_seed.f_entropy = f_entropy;
		deferred_seed.p_entropy = p_entropy;
		deferred_seed.len = len;
		deferred_seed.pending = true;
		return 0;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "mbedtls_ctr_drbg_seed");
	/* -0x0034 is MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED. */
	return real ? real(ctx, f_entropy, p_entropy, custom, len) : -0x0034;
}

void mbedtls_havege_init(void *hs)
{
	void (*real)(void *);

	if (!tls_enabled) {
		deferred_havege = hs;
		return;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "mbedtls_havege_init");
	if (real)
		real(hs);
}

/* A state freed before TLS was enabled is not filled later. */
void mbedtls_havege_free(void *hs)
{
	void (*real)(void *);

	if (hs == deferred_havege)
		deferred_havege = NULL;
	*(void **)&real = dlsym(RTLD_NEXT, "mbedtls_havege_free");
	if (real)
		real(hs);
}

int libssh2_init(int flags)
{
	int (*real)(int);

	if (!tls_enabled) {
		ssh_pending = true;
		ssh_flags = flags;
		return 0;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "libssh2_init");
	return real ? real(flags) : 0;
}

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
	if (deferred_havege) {
		mbedtls_havege_init(deferred_havege);
		deferred_havege = NULL;
	}
	if (deferred_seed.pending) {
		mbedtls_ctr_drbg_seed(deferred_seed.ctx, deferred_seed.f_entropy,
				      deferred_seed.p_entropy, deferred_seed.custom,
				      deferred_seed.len);
		deferred_seed.pending = false;
	}
	if (ssh_pending) {
		libssh2_init(ssh_flags);
		ssh_pending = false;
	}
	if (deferred_file)
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, deferred_file, NULL);
}
