/* jobs_meshes.c - uploaded meshes in the job service (jobs.h): the owner's
 * checks of listing, reading and deleting them, so that every read a
 * token's owner filters is decided here, not in the routes. */
#include "jobs.h"

#include "log.h"
#include "mesh_files.h"

#include <errno.h>
#include <string.h>

int ndem_jobs_mesh_list(ndem_app *app, const ndem_caller *who, long before, int limit,
                        ndem_mesh_info **rows, long **seqs, int *n, ndem_problem *p)
{
    if (ndem_meshes_list(app->meshes, ndem_list_owner(who), before, limit, rows, seqs, n) == 0)
        return 0;
    ndem_problem_set(p, 500, "the mesh index failed");
    return -1;
}

int ndem_jobs_mesh_get(ndem_app *app, const ndem_caller *who, const char *id, ndem_mesh_info *info,
                       ndem_problem *p)
{
    int rc = ndem_mesh_id_valid(id) ? ndem_meshes_get(app->meshes, id, info) : 1;
    if (rc == 0 && !ndem_may_see(who, info->owner)) rc = 1; /* another owner's: as unknown */
    if (rc > 0) ndem_problem_set(p, 404, "no mesh with id '%s'", id);
    if (rc < 0) ndem_problem_set(p, 500, "the mesh index failed");
    return rc ? -1 : 0;
}

int ndem_jobs_mesh_delete(ndem_app *app, const ndem_caller *who, const char *id, ndem_problem *p)
{
    ndem_mesh_info info;
    char blocker[64];
    if (ndem_jobs_mesh_get(app, who, id, &info, p)) return -1;
    int rc = ndem_meshes_delete(app->meshes, id, blocker, sizeof blocker);
    if (rc == 0) {
        if (ndem_mesh_file_remove(app->cfg.data, id))
            ndem_log("mesh %s: cannot remove its file: %s", id, strerror(errno));
        ndem_log("mesh %s: deleted", id);
        return 0;
    }
    if (rc == 1) ndem_problem_set(p, 404, "no mesh with id '%s'", id);
    else if (rc == 2)
        ndem_problem_set(p, 409,
                         "mesh %s is used by job %s, which is queued or running: cancel it "
                         "(or let it finish) first",
                         id, blocker);
    else ndem_problem_set(p, 500, "the mesh index failed");
    return -1;
}
