/* job_motion.c - a geometry's "motion" member: constant motion about a
 * pivot, or keyframes (docs/job.md, "Moving geometry"). The shorthand
 * members velocity and angular_velocity are read by job_scene.c; giving
 * both forms is refused here. */
#include "job_parts.h"

#include <math.h>
#include <string.h>

/* Keyframes of one geometry: bounds the memory a document can ask for. */
#define NDEM_JOB_MAX_KEYFRAMES 100000

static const char *const motion_keys[] = {"velocity", "angular_velocity", "pivot", "keyframes",
                                          NULL};
static const char *const keyframe_keys[] = {"time", "position", "orientation", NULL};

_Static_assert(sizeof(ndem_keyframe) == 8 * sizeof(double), "a keyframe is 8 doubles");

/* The orientation of keyframe f (its object e): normalised, except that one
 * of unit length up to rounding stays as written, so the JSON round trip is
 * exact. */
static void read_orientation(ndem_jc *c, const cJSON *e, ndem_keyframe *f)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "orientation");
    if (!v) {
        ndem_jc_error_at(c, "orientation", "is required ([1, 0, 0, 0]: as the shape is defined)");
        return;
    }
    size_t mark = ndem_jc_push_key(c, "orientation");
    if (ndem_job_quaternion_value(c, v, f->orientation) == NDEM_JC_OK) {
        double raw[4], len = 0;
        int k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, v)
        {
            raw[k] = x->valuedouble;
            len += raw[k] * raw[k];
            k++;
        }
        if (fabs(sqrt(len) - 1.0) <= 1e-12) memcpy(f->orientation, raw, sizeof raw);
    }
    ndem_jc_pop(c, mark);
}

static void read_keyframes(ndem_jc *c, const cJSON *motion, ndem_job *job, ndem_geometry_def *g)
{
    const cJSON *arr, *e;
    int n =
        ndem_jc_array(c, motion, "keyframes", 1, NDEM_JOB_MAX_KEYFRAMES, NDEM_JC_REQUIRED, &arr);
    if (n <= 0) return;
    ndem_keyframe *k = (ndem_keyframe *)ndem_job_list_array(c, job, 8 * (size_t)n);
    if (!k) return;
    memset(k, 0, sizeof *k * (size_t)n);
    size_t mark = ndem_jc_push_key(c, "keyframes");
    int i = 0, have_prev = 0;
    double prev = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i);
        ndem_keyframe *f = &k[i];
        if (ndem_jc_expect_object(c, e)) {
            ndem_jc_members(c, e, keyframe_keys, NULL, NULL);
            if (ndem_jc_number(c, e, "time", &f->time, &ndem_jc_any, NDEM_JC_REQUIRED) ==
                NDEM_JC_OK) {
                if (have_prev && !(f->time > prev))
                    ndem_jc_error_at(c, "time",
                                     "must be greater than the time of the keyframe before it "
                                     "(%g): keyframe times strictly increase",
                                     prev);
                prev = f->time;
                have_prev = 1;
            }
            ndem_jc_vec3(c, e, "position", f->position, NDEM_JC_REQUIRED);
            read_orientation(c, e, f);
        }
        ndem_jc_pop(c, m2);
        i++;
    }
    ndem_jc_pop(c, mark);
    g->keyframes = k;
    g->keyframe_count = n;
}

void ndem_job_read_motion(ndem_jc *c, const cJSON *item, ndem_job *job, ndem_geometry_def *g)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(item, "motion");
    if (!m) return;
    size_t mark = ndem_jc_push_key(c, "motion");
    if (cJSON_GetObjectItemCaseSensitive(item, "velocity") ||
        cJSON_GetObjectItemCaseSensitive(item, "angular_velocity")) {
        ndem_jc_error(c, "give either \"motion\" or the shorthand \"velocity\" and "
                         "\"angular_velocity\" of the geometry, not both");
    }
    if (ndem_jc_expect_object(c, m)) {
        ndem_jc_members(c, m, motion_keys, NULL, NULL);
        if (cJSON_GetObjectItemCaseSensitive(m, "keyframes")) {
            for (int i = 0; i < 3; i++)
                if (cJSON_GetObjectItemCaseSensitive(m, motion_keys[i]))
                    ndem_jc_error_at(c, motion_keys[i],
                                     "not with \"keyframes\" (keyframes give the whole motion)");
            read_keyframes(c, m, job, g);
        } else {
            ndem_jc_vec3(c, m, "velocity", g->velocity, 0);
            ndem_jc_vec3(c, m, "angular_velocity", g->angular_velocity, 0);
            if (ndem_jc_vec3(c, m, "pivot", g->pivot, 0) == NDEM_JC_OK) g->has_pivot = 1;
        }
    }
    ndem_jc_pop(c, mark);
}
