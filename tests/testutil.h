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

/* Path of a file under ../shared (NDEM_SHARED overrides). */
static inline const char *ndem_test_shared(const char *rel, char *buf, size_t n)
{
    const char *root = getenv("NDEM_SHARED");
    snprintf(buf, n, "%s/%s", root ? root : "../shared", rel);
    return buf;
}

#endif
