/* The static export's file names (export.h) and the store index's order
 * of verdicts (store_index.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "serve/export.h"
#include "serve/store_index.h"

static void name_is(const char *uri, const char *want)
{
	char *got = export_file_name(uri);

	assert_string_equal(got, want);
	free(got);
}

static void test_export_names(void **state)
{
	(void)state;
	name_is("/api/project", "api/project.json");
	name_is("/api/project/versions", "api/project/versions.json");
	/* Paging is dropped: the export holds the whole list. */
	name_is("/api/project/versions?limit=100000", "api/project/versions.json");
	name_is("/api/project/versions?limit=5&after=ab12", "api/project/versions.json");
	name_is("/api/project/history?series=3", "api/project/history@series_3d3.json");
	name_is("/api/project/history?limit=3&series=12", "api/project/history@series_3d12.json");
	name_is("/api/project/diff?a=ab&b=cd", "api/project/diff@a_3dab&b_3dcd.json");
	/* Nothing leaves the folder or names something odd. */
	name_is("/api/project/x?q=../../etc/passwd",
		"api/project/x@q_3d.._2f.._2fetc_2fpasswd.json");
	name_is("/api/project/a b", "api/project/a_20b.json");
	name_is("/api/project/../x.perf", "api/project/_2e_2e/x_2eperf.json");
	name_is("/api/project/x?", "api/project/x.json");
}

static void test_class_rank(void **state)
{
	(void)state;
	assert_int_equal(store_index_class_rank(NULL), 0);
	assert_int_equal(store_index_class_rank("Nonsense"), 0);
	assert_true(store_index_class_rank("TotalDegradation") >
		    store_index_class_rank("SevereDegradation"));
	assert_true(store_index_class_rank("MaybeDegradation") >
		    store_index_class_rank("TotalOptimization"));
	assert_true(store_index_class_rank("Optimization") > store_index_class_rank("NoChange"));
	assert_true(store_index_class_rank("NoChange") > store_index_class_rank("NotInBaseline"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_names),
		cmocka_unit_test(test_class_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
