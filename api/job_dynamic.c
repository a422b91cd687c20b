/* job_dynamic.c - a geometry's "dynamic" member: the geometry is a rigid
 * body of finite mass moved by its contacts, gravity and a force
 * (core/rigid.h; docs/job.md, "Dynamic geometry"). */
#include "geometry_mesh.h"
#include "job_parts.h"

#include <string.h>

static const char *const dynamic_keys[] = {"mass",     "inertia",          "lock", "force",
                                           "velocity", "angular_velocity", NULL};
/* lock names, in the order of the NDEM_LOCK_ bits */
static const char *const lock_names[] = {"x", "y", "z", "rx", "ry", "rz", NULL};

static void read_lock(ndem_jc *c, const cJSON *d, ndem_dynamic_def *dy)
{
    const cJSON *arr, *e;
    if (ndem_jc_array(c, d, "lock", 0, 6, 0, &arr) <= 0) return;
    size_t mark = ndem_jc_push_key(c, "lock");
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        size_t m2 = ndem_jc_push_index(c, i++);
        int k = 0;
        while (lock_names[k] && !(cJSON_IsString(e) && !strcmp(e->valuestring, lock_names[k]))) k++;
        if (!lock_names[k])
            ndem_jc_error(c, "must be one of \"x\", \"y\", \"z\", \"rx\", \"ry\", \"rz\" "
                             "(world axes: a translation or a turn about it)");
        else if (dy->lock & (1u << k)) ndem_jc_error(c, "\"%s\" is listed twice", lock_names[k]);
        else dy->lock |= 1u << k;
        ndem_jc_pop(c, m2);
    }
    ndem_jc_pop(c, mark);
}

/* A closed, oriented mesh with an inside has mass properties (core/mesh.c). */
static int mesh_encloses(const ndem_mesh *m) { return m->closed && m->oriented && m->volume > 0; }

void ndem_job_read_dynamic(ndem_jc *c, const cJSON *item, ndem_geometry_def *g)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(item, "dynamic");
    if (!d) return;
    size_t mark = ndem_jc_push_key(c, "dynamic");
    /* a body's motion comes from its contacts: its initial velocities are
     * its own members */
    static const char *const motion[] = {"motion", "velocity", "angular_velocity"};
    for (int i = 0; i < 3; i++)
        if (cJSON_GetObjectItemCaseSensitive(item, motion[i]))
            ndem_jc_error(c,
                          "not with the geometry's \"%s\": a dynamic body is moved by its "
                          "contacts (give its initial \"velocity\" and \"angular_velocity\" "
                          "inside \"dynamic\")",
                          motion[i]);
    if (ndem_jc_expect_object(c, d)) {
        ndem_dynamic_def *dy = &g->dynamic;
        dy->enabled = 1;
        ndem_jc_members(c, d, dynamic_keys, NULL, NULL);
        ndem_jc_number(c, d, "mass", &dy->mass, &ndem_jc_positive, NDEM_JC_REQUIRED);
        ndem_jc_numbers(c, d, "inertia", 3, dy->inertia, &ndem_jc_positive, 0);
        read_lock(c, d, dy);
        ndem_jc_vec3(c, d, "force", dy->force, 0);
        ndem_jc_vec3(c, d, "velocity", g->velocity, 0);
        ndem_jc_vec3(c, d, "angular_velocity", g->angular_velocity, 0);
        int given = cJSON_GetObjectItemCaseSensitive(d, "inertia") != NULL;
        int turns = (dy->lock & NDEM_LOCK_ROTATION) != NDEM_LOCK_ROTATION;
        /* the inertia of a box or a cylinder comes from its shape
         * (core/mass_props.c), a closed mesh's from its placement (core/mesh.c);
         * an open mesh encloses nothing */
        if (!given && turns && g->type == NDEM_GEOMETRY_PLANE)
            ndem_jc_error(c, "a plane has no volume to take an inertia from: give \"inertia\" "
                             "or lock its turns (\"lock\": [\"rx\", \"ry\", \"rz\"])");
        else if (!given && turns && g->type == NDEM_GEOMETRY_MESH && g->mesh &&
                 !mesh_encloses(g->mesh->mesh))
            ndem_jc_error(c, "the mesh is not closed (or not consistently oriented), so it has "
                             "no inside to take an inertia from: give \"inertia\" or lock its "
                             "turns");
    }
    ndem_jc_pop(c, mark);
}
