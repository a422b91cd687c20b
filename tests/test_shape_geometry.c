/* test_shape_geometry.c - shaped particles against scene geometry in smooth
 * DEM (docs/shapes.md, "Shapes against geometry"): a cube resting on a
 * solid box's top, on the floor of an inside cylinder, on a solid
 * cylinder's top and on a triangulated tray at the Hertz height of its
 * weight (1%), against the side wall of an inside cylinder, and sliding on
 * a triangulated incline at the analytic plane's g (sin - mu cos) (2%).
 * The scenes are shape_geo_scenes.h's; test_shape_ndem runs them under NDEM. */
#include "scene.h"
#include "shape_geo_scenes.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define HERTZ "\"method\": \"dem\", \"contact_model\": \"hertz\""
#define HUNT "\"method\": \"dem\", \"contact_model\": \"hunt_crossley\""

START_TEST(cube_rests_on_solid_box)
{
    shape_cube_rests_on("solid box", SHAPE_SOLID_BOX, 0.01, -0.02, HERTZ, 2e-5);
    shape_cube_rests_on("small box", SHAPE_SMALL_BOX, 0, 0, HUNT, 2e-5);
}
END_TEST

START_TEST(cube_rests_in_and_on_cylinders)
{
    shape_cube_rests_on("inside cylinder", SHAPE_INSIDE_CYLINDER, 0.03, 0.02, HERTZ, 2e-5);
    shape_cube_rests_on("solid cylinder", SHAPE_SOLID_CYLINDER, 0.03, 0.02, HERTZ, 2e-5);
    shape_cube_rests_on("lying cylinder", SHAPE_LYING_CYLINDER, 0, 0.02, HERTZ, 2e-5);
}
END_TEST

START_TEST(cube_rests_on_mesh_tray)
{
    /* cells of 0.04: the cube's corners sit on different triangles, and its
     * face spans the shared edges between them */
    test_text t = {0};
    shape_slab_mesh(&t, 0.2, 0.2, 0.04, 0);
    shape_cube_rests_on("mesh tray", t.s, 0.013, -0.007, HERTZ, 2e-5);
    shape_cube_rests_on("mesh tray", t.s, 0.013, -0.007, HUNT, 2e-5);
    free(t.s);
}
END_TEST

/* The cube slides down the triangulated incline at the analytic plane's
 * g (sin - mu cos) within 2% (test_shape_body's slope_stick_slide_tip). */
START_TEST(cube_slides_on_mesh_incline)
{
    double a = shape_cube_slides_on_mesh(HUNT, 1e-4);
    ck_assert_msg(fabs(a - 1) < 0.02, "mesh incline: %g of g (sin - mu cos)", a);
}
END_TEST

static Suite *shape_geometry_suite(void)
{
    Suite *s = suite_create("shape_geometry");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cube_rests_on_solid_box);
    tcase_add_test(tc, cube_rests_in_and_on_cylinders);
    tcase_add_test(tc, cube_rests_on_mesh_tray);
    tcase_add_test(tc, cube_slides_on_mesh_incline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ndem_test_run_suite(shape_geometry_suite()); }
