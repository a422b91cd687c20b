/* test_material.c - the material pair table against AGX 35.4. */
#include "material.h"
#include "testutil.h"

#include <math.h>

static ndem_scene_def two_materials(ndem_material_def m[2], ndem_contact_material_def *c)
{
    ndem_scene_def d = ndem_default_scene_def();
    m[0] = ndem_default_material_def();
    m[1] = ndem_default_material_def();
    m[0].young_modulus = 6e6;
    m[1].young_modulus = 2e11;
    *c = ndem_default_contact_material_def();
    c->material_a = 1;
    c->material_b = 0;
    c->friction = 0.91;
    d.material_count = 2;
    d.materials = m;
    d.contact_material_count = 1;
    d.contact_materials = c;
    return d;
}

START_TEST(hertz_stiffness_formula)
{
    /* k_n = E sqrt(2 d) / (3 (1 - nu^2)) for two 13 mm spheres: d* = 6.5 mm. */
    double k = ndem_hertz_stiffness(6e6, 0.3, 0.0065);
    double expect = 6e6 * 0.11401754250991379 / (3.0 * 0.91);
    ck_assert_double_eq_tol(k, expect, 1e-9 * expect);
}
END_TEST

START_TEST(pair_modulus_and_lookup)
{
    ndem_material_def m[2];
    ndem_contact_material_def c;
    ndem_scene_def d = two_materials(m, &c);
    ndem_material_table t;
    ck_assert_int_eq(ndem_material_table_init(&t, &d), 0);
    /* listed pair in either order; modulus 2 Ea Eb / (Ea + Eb) */
    double e = 2.0 * 6e6 * 2e11 / (6e6 + 2e11);
    ck_assert_double_eq_tol(ndem_pair(&t, 0, 1)->young_modulus, e, 1e-6);
    ck_assert_double_eq(ndem_pair(&t, 0, 1)->friction, 0.91);
    ck_assert_double_eq(ndem_pair(&t, 1, 0)->friction, 0.91);
    /* unlisted pair takes the defaults */
    ck_assert_double_eq(ndem_pair(&t, 0, 0)->friction, 0.5);
    ck_assert_double_eq_tol(ndem_pair(&t, 0, 0)->young_modulus, 6e6, 1e-6);
    ndem_material_table_destroy(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("material");
    TCase *tc = tcase_create("pairs");
    tcase_add_test(tc, hertz_stiffness_formula);
    tcase_add_test(tc, pair_modulus_and_lookup);
    suite_add_tcase(s, tc);
    return ndem_test_run_suite(s);
}
