/* job_walls.c - a box's "walls" member: the stress-controlled box, the
 * triaxial cell (core/walls.h; docs/job.md, "Stress-controlled box"). */
#include "job_parts.h"

#include <string.h>

static const char *const walls_keys[] = {"mass", "stress",    "velocity", "start",
                                         "ramp", "max_speed", NULL};

/* "velocity": three entries, each an inward speed or null (stress-controlled) */
static void read_velocity(ndem_jc *c, const cJSON *d, ndem_walls_def *w)
{
    const cJSON *arr, *e;
    if (ndem_jc_array(c, d, "velocity", 3, 3, 0, &arr) != 3) return;
    size_t mark = ndem_jc_push_key(c, "velocity");
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        if (!cJSON_IsNull(e))
            w->driven[i] = ndem_jc_number_value(c, e, &w->velocity[i], &ndem_jc_any) == NDEM_JC_OK;
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
}

void ndem_job_read_walls(ndem_jc *c, const cJSON *item, ndem_geometry_def *g)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(item, "walls");
    if (!d) return;
    size_t mark = ndem_jc_push_key(c, "walls");
    if (g->type != NDEM_GEOMETRY_BOX || !g->inside)
        ndem_jc_error(c, "only a box with \"inside\": true has walls");
    /* the walls move themselves: the box itself stays where it is */
    static const char *const motion[] = {"dynamic", "motion", "velocity", "angular_velocity"};
    for (int i = 0; i < 4; i++)
        if (cJSON_GetObjectItemCaseSensitive(item, motion[i]))
            ndem_jc_error(c,
                          "not with the geometry's \"%s\": the walls move the faces, the box "
                          "itself stays where it is",
                          motion[i]);
    if (ndem_jc_expect_object(c, d)) {
        ndem_walls_def *w = &g->walls;
        w->enabled = 1;
        ndem_jc_members(c, d, walls_keys, NULL, NULL);
        ndem_jc_number(c, d, "mass", &w->mass, &ndem_jc_positive, NDEM_JC_REQUIRED);
        ndem_jc_numbers(c, d, "stress", 3, w->stress, &ndem_jc_nonneg, NDEM_JC_REQUIRED);
        read_velocity(c, d, w);
        ndem_jc_number(c, d, "start", &w->start, &ndem_jc_nonneg, 0);
        ndem_jc_number(c, d, "ramp", &w->ramp, &ndem_jc_nonneg, 0);
        w->max_speed = NDEM_WALLS_MAX_SPEED;
        ndem_jc_number(c, d, "max_speed", &w->max_speed, &ndem_jc_positive, 0);
    }
    ndem_jc_pop(c, mark);
}
