/* paraview_out.c - ParaView files of `ndem run` (paraview_out.h). */
#include "paraview_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_file(void *ctx, const char *name, const char *text, size_t len)
{
    const ndem_pv_out *p = ctx;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", p->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
    if (fclose(f)) rc = -1;
    return rc;
}

/* Writes `entries` over the closing tags and the tags again after them:
 * the collection is whole after every frame, and each frame costs only
 * its own lines. */
static int append(ndem_pv_out *p, const char *entries, size_t len)
{
    if (fseek(p->pvd, p->tail_at, SEEK_SET) || fwrite(entries, 1, len, p->pvd) != len) return -1;
    p->tail_at += (long)len;
    if (fputs(ndem_pvd_tail, p->pvd) < 0 || fflush(p->pvd)) return -1;
    return 0;
}

int ndem_pv_out_open(ndem_pv_out *p, const char *dir, const ndem_scene_def *scene, long resume_at)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "%s/paraview", dir);
    p->series.scene = scene;
    if (mkdir(p->dir, 0777) && errno != EEXIST) return -1;
    char path[4400];
    snprintf(path, sizeof path, "%s/frames.pvd", p->dir);
    if (resume_at >= 0) { /* the earlier entries stay; the tags go after them again */
        p->pvd = fopen(path, "r+");
        if (!p->pvd) return -1;
        p->tail_at = resume_at;
        if (append(p, "", 0) || ftruncate(fileno(p->pvd), (off_t)ftell(p->pvd))) {
            ndem_pv_out_close(p);
            return -1;
        }
        return 0;
    }
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
    char *entries;
    size_t len;
    if (ndem_paraview_frame(&p->series, f, index, write_file, p, &entries, &len)) return -1;
    int rc = append(p, entries, len);
    free(entries);
    return rc;
}

void ndem_pv_out_close(ndem_pv_out *p)
{
    if (p->pvd) fclose(p->pvd);
    p->pvd = NULL;
    ndem_paraview_free(&p->series);
}
