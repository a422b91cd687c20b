/* testutil.h - small helpers shared by the Check suites. */
#ifndef NDEM_TESTUTIL_H
#define NDEM_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs one suite, prints Check's summary, returns the process exit code.
 * No fork: the daemon suites keep one daemon across cases in the parent
 * (tests/run_all.sh bounds every suite instead of tcase_set_timeout).
 * CK_VERBOSITY=verbose lists every case with its result. */
static inline int ndem_test_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, getenv("CK_VERBOSITY") ? CK_ENV : CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Path of a standard scene in the repository's bench/ (bench/README.md).
 * The suites run from the repository root (tests/run_all.sh goes there). */
static inline const char *ndem_test_bench(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "bench/%s", name);
    return buf;
}

/* Writes text to path (a test's own input file); fails the case if it cannot. */
static inline void ndem_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

#endif
