/* test_lll.c - the Linked Linear List broad phase (`"broad_phase": "lll"`,
 * docs/shapes.md "The Linked Linear List"): a poured bed gives the same
 * Verlet lists and the same state, bit for bit, as the grid, for a
 * polydisperse bed (radius ratio 1:10, the grid's big-body path) and a
 * monodisperse one, under NDEM and smooth DEM, with cubes too; the lists
 * are rebuilt many times (the incremental insertion sort is what runs);
 * the document's field is checked at its pointer and given back. */
#include "broadphase_lll.h"
#include "parser_util.h"
#include "scene.h"
#include "sim.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define CUBE                                                                                       \
    "{\"type\": \"polyhedron\", \"vertices\": [[-1,-1,-1],[1,-1,-1],[1,1,-1],[-1,1,-1],"           \
    "[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]]}"

/* A bed of `count` particles of radius `radius` (a number or a
 * distribution) poured into a box, run `steps` steps with broad phase bp;
 * returns the state hash, the list builds and the lists' hash. */
static uint64_t bed(const char *radius, const char *shape, const char *solver, const char *bp,
                    long steps, long *builds, uint64_t *lists)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"gravity\": [0,0,-9.81], \"materials\": [{\"name\": \"s\", \"density\": "
        "2500, \"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"box\", \"inside\": true, "
        "\"min\": [-0.1,-0.1,0], \"max\": [0.1,0.1,0.6], \"material\": \"s\"}], \"particles\": "
        "[{\"type\": \"random\", \"min\": [-0.08,-0.08,0.02], \"max\": [0.08,0.08,0.5], "
        "\"count\": 300, \"seed\": 7, \"radius\": %s, \"velocity\": [0.3,-0.2,-1]%s}]}, "
        "\"solver\": {%s, \"duration\": 1, \"broad_phase\": \"%s\", \"threads\": 2}}",
        radius, shape, solver, bp);
    ndem_sim *sim = test_sim(job);
    for (long k = 0; k < steps; k++) test_step(sim);
    uint64_t h = ndem_sim_state_hash(sim);
    const ndem_neighbours *nl = &sim->neighbours;
    *builds = nl->builds;
    uint64_t l = 1469598103934665603ull;
    for (long i = 0; i <= nl->bodies; i++) l = (l ^ (uint64_t)nl->start[i]) * 1099511628211ull;
    for (long k = 0; k < nl->count; k++) l = (l ^ (uint64_t)nl->j[k]) * 1099511628211ull;
    *lists = l;
    if (!strcmp(bp, "lll")) ck_assert_ptr_nonnull(sim->lll);
    else ck_assert_ptr_null(sim->lll);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
    return h;
}

static void same(const char *what, const char *radius, const char *shape, const char *solver,
                 long steps)
{
    long b1, b2;
    uint64_t l1, l2;
    uint64_t grid = bed(radius, shape, solver, "grid", steps, &b1, &l1);
    uint64_t lll = bed(radius, shape, solver, "lll", steps, &b2, &l2);
    ck_assert_msg(b1 > 5, "%s: the lists were built %ld times only", what, b1);
    ck_assert_msg(b1 == b2, "%s: %ld builds with the grid, %ld with the LLL", what, b1, b2);
    ck_assert_msg(l1 == l2, "%s: the lists differ", what);
    ck_assert_msg(grid == lll, "%s: the state differs (grid %016llx, LLL %016llx)", what,
                  (unsigned long long)grid, (unsigned long long)lll);
}

START_TEST(same_bits_as_the_grid)
{
    const char *ndem = "\"method\": \"ndem\", \"time_step\": 2e-4";
    const char *dem = "\"method\": \"dem\", \"contact_model\": \"hertz\", \"time_step\": 2e-5";
    same("polydisperse, NDEM", "{\"min\": 0.002, \"max\": 0.02}", "", ndem, 400);
    same("monodisperse, NDEM", "0.006", "", ndem, 400);
    same("polydisperse, DEM", "{\"min\": 0.002, \"max\": 0.02}", "", dem, 1500);
    same("cubes, DEM", "0.008", ", \"shape\": " CUBE, dem, 1500);
}
END_TEST

START_TEST(broad_phase_field)
{
    ndem_job *job = parse_ok("{'scene': {" MAT "}, 'solver': {'broad_phase': 'lll'}}");
    ck_assert_int_eq(job->scene.solver.broad_phase, NDEM_BROAD_PHASE_LLL);
    char *text = ndem_job_to_json(job);
    ck_assert_ptr_nonnull(strstr(text, "\"broad_phase\": \"lll\""));
    free(text);
    ndem_job_destroy(job);
    job = parse_ok("{'scene': {" MAT "}}");
    ck_assert_int_eq(job->scene.solver.broad_phase, NDEM_BROAD_PHASE_GRID);
    ndem_job_destroy(job);
    ndem_job_errors e = {0};
    ck_assert_int_eq(
        parse_sq("{'scene': {" MAT "}, 'solver': {'broad_phase': 'octree'}}", &job, &e),
        NDEM_JOB_INVALID);
    ck_assert(has_error(&e, "/solver/broad_phase", "must be one of \"grid\", \"lll\""));
    ndem_job_errors_clear(&e);
}
END_TEST

static Suite *lll_suite(void)
{
    Suite *s = suite_create("lll");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, same_bits_as_the_grid);
    tcase_add_test(tc, broad_phase_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(lll_suite()); }
