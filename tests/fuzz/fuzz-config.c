/*
 * config.yml (src/config/): the reader, the schema check, and the editor
 * of `veles config set`, which rewrites only the line of its key and must
 * refuse, not damage, a layout it does not follow.
 */
#include <string.h>

#include "config/config.h"
#include "fuzz.h"

static void each(const char *key, const char *value, void *arg)
{
	size_t *n = arg;

	*n += strlen(key) + strlen(value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[][2] = {
		{"collect.warn_dirty", "true"},
		{"cmds.0", "a: b"},
		{"new.deep.key", "x"},
	};
	struct config *c;
	size_t n = 0;

	if (config_load_text("fuzz.yml", (const char *)data, size, &c) == 0) {
		config_validate(c);
		config_each(c, each, &n);
		config_get(c, "collect.warn_dirty");
		config_bool(c, "collect.warn_dirty", false);
		config_has(c, "cmds");
		config_error_at(c, "cmds.0", "%s", "checked");
		config_free(c);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		config_set_file(fuzz_file("config.yml", data, size), keys[i][0], keys[i][1]);
	return 0;
}
