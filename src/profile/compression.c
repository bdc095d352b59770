/* zlib/gzip and zstd, detected by their magic bytes. */
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

enum compression compression_detect(const void *data, size_t len)
{
	const unsigned char *d = data;

	if (len >= 4 && d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd)
		return COMP_ZSTD;
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return COMP_ZLIB; /* gzip: inflate handles both */
	/* A zlib stream: deflate with a window <= 32K, and FCHECK making the
	 * first two bytes a multiple of 31 (RFC 1950). '{' never passes. */
	if (len >= 2 && d[0] == 0x78 && ((d[0] << 8) | d[1]) % 31 == 0)
		return COMP_ZLIB;
	return COMP_NONE;
}

static int inflate_all(const void *data, size_t len, struct buf *out)
{
	z_stream zs;
	int ret;

	memset(&zs, 0, sizeof(zs));
	/* 15 + 32: a zlib or a gzip header, detected by zlib. */
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return err_set(ERR_NOMEM, "cannot start zlib");
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	do {
		buf_grow(out, len * 4 + 65536);
		zs.next_out = (Bytef *)out->data + out->len;
		zs.avail_out = (uInt)(out->cap - out->len - 1);
		ret = inflate(&zs, Z_NO_FLUSH);
		out->len = (size_t)((char *)zs.next_out - out->data);
	} while (ret == Z_OK);
	inflateEnd(&zs);
	out->data[out->len] = '\0';
	if (ret != Z_STREAM_END)
		return err_set(ERR_PARSE, "corrupt or truncated zlib data");
	return 0;
}

static int unzstd_all(const void *data, size_t len, struct buf *out)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = {data, len, 0};
	size_t ret = 1;

	if (!dc)
		return err_set(ERR_NOMEM, "cannot start zstd");
	while (in.pos < in.size) {
		ZSTD_outBuffer ob;

		buf_grow(out, ZSTD_DStreamOutSize());
		ob = (ZSTD_outBuffer){out->data + out->len, out->cap - out->len - 1, 0};
		ret = ZSTD_decompressStream(dc, &ob, &in);
		out->len += ob.pos;
		if (ZSTD_isError(ret))
			break;
		if (ret == 0 && in.pos < in.size)
			continue; /* another frame */
	}
	ZSTD_freeDCtx(dc);
	if (out->data)
		out->data[out->len] = '\0';
	if (ZSTD_isError(ret))
		return err_set(ERR_PARSE, "corrupt zstd data: %s", ZSTD_getErrorName(ret));
	if (ret != 0)
		return err_set(ERR_PARSE, "truncated zstd data");
	return 0;
}

int compression_decompress(const void *data, size_t len, struct buf *out)
{
	switch (compression_detect(data, len)) {
	case COMP_ZSTD:
		return unzstd_all(data, len, out);
	case COMP_ZLIB:
		return inflate_all(data, len, out);
	default:
		buf_add(out, data, len);
		return 0;
	}
}

int compression_compress(enum compression comp, const void *data, size_t len, struct buf *out)
{
	if (comp == COMP_ZSTD) {
		size_t bound = ZSTD_compressBound(len), n;

		buf_grow(out, bound);
		n = ZSTD_compress(out->data + out->len, bound, data, len, 3);
		if (ZSTD_isError(n))
			return err_set(ERR_GENERIC, "zstd: %s", ZSTD_getErrorName(n));
		out->len += n;
	} else if (comp == COMP_ZLIB) {
		uLongf n = compressBound((uLong)len);

		buf_grow(out, n);
		if (compress2((Bytef *)out->data + out->len, &n, data, (uLong)len, 6) != Z_OK)
			return err_set(ERR_NOMEM, "zlib compression failed");
		out->len += n;
	} else {
		buf_add(out, data, len);
		return 0;
	}
	out->data[out->len] = '\0';
	return 0;
}

enum compression compression_from_name(const char *name)
{
	if (strcmp(name, "none") == 0)
		return COMP_NONE;
	if (strcmp(name, "zlib") == 0)
		return COMP_ZLIB;
	if (strcmp(name, "zstd") == 0)
		return COMP_ZSTD;
	return (enum compression) - 1;
}
