/* paraview_out.c - ParaView files of `ndem run` (paraview_out.h). */
#include "paraview_out.h"

#include "frame_export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int write_file(const ndem_pv_out *p, const char *name, const char *text, size_t len)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", p->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
    if (fclose(f)) rc = -1;
    return rc;
}

/* Replaces the closing tags with `entries` and writes them again after:
 * the collection is whole after every frame. */
static int append(ndem_pv_out *p, const char *entries, size_t len)
{
    if (fseek(p->pvd, p->tail_at, SEEK_SET) || fwrite(entries, 1, len, p->pvd) != len) return -1;
    p->tail_at += (long)len;
    if (fputs(ndem_pvd_tail, p->pvd) < 0 || fflush(p->pvd)) return -1;
    return 0;
}

int ndem_pv_out_open(ndem_pv_out *p, const char *dir, const ndem_scene_def *scene)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "%s/paraview", dir);
    p->scene = scene;
    if (mkdir(p->dir, 0777) && errno != EEXIST) return -1;
    char path[4400];
    snprintf(path, sizeof path, "%s/frames.pvd", p->dir);
    p->pvd = fopen(path, "w");
    if (!p->pvd) return -1;
    p->tail_at = (long)strlen(ndem_pvd_head);
    if (fputs(ndem_pvd_head, p->pvd) < 0 || append(p, "", 0)) {
        ndem_pv_out_close(p);
        return -1;
    }
    return 0;
}

int ndem_pv_out_frame(ndem_pv_out *p, const ndem_frame *f, long index)
{
    int geo = p->scene->geometry_count;
    if (!p->first_poses && f->geometry_poses && f->geometry_count == geo) {
        p->first_poses = malloc((size_t)(geo + 1) * 7 * sizeof(double));
        if (!p->first_poses) return -1;
        memcpy(p->first_poses, f->geometry_poses, (size_t)geo * 7 * sizeof(double));
        p->plane = ndem_paraview_plane_view(f);
    }
    char name[64], entry[300];
    size_t len;
    snprintf(name, sizeof name, "particles_%06ld.vtp", index);
    char *text = ndem_frame_to_vtp(f, index, &len);
    int rc = text ? write_file(p, name, text, len) : -1;
    free(text);
    /* the entries of this frame: the particles, then each geometry */
    size_t cap = (size_t)(geo + 1) * sizeof entry, used = 0;
    char *entries = rc ? NULL : malloc(cap);
    int n = entries ? ndem_pvd_entry(entries, cap, f->time, 0, name) : -1;
    rc = n < 0 ? -1 : rc;
    used = n < 0 ? 0 : (size_t)n;
    for (int g = 0; g < geo && rc == 0 && p->first_poses; g++) {
        const double *pose = f->geometry_poses + 7 * g;
        int moved = !ndem_pose_same(pose, p->first_poses + 7 * g);
        if (moved) snprintf(name, sizeof name, "geometry_%d_%06ld.vtp", g, index);
        else snprintf(name, sizeof name, "geometry_%d.vtp", g);
        if (moved || index == 0) {
            text = ndem_geometry_to_vtp(&p->scene->geometry[g], g, pose, &p->plane, f->time, &len);
            rc = text ? write_file(p, name, text, len) : -1;
            free(text);
        }
        n = ndem_pvd_entry(entry, sizeof entry, f->time, g + 1, name);
        if (n < 0 || used + (size_t)n >= cap) rc = -1;
        else memcpy(entries + used, entry, (size_t)n), used += (size_t)n;
    }
    if (rc == 0) rc = append(p, entries, used);
    free(entries);
    return rc;
}

void ndem_pv_out_close(ndem_pv_out *p)
{
    if (p->pvd) fclose(p->pvd);
    p->pvd = NULL;
    free(p->first_poses);
    p->first_poses = NULL;
}
