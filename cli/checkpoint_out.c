/* checkpoint_out.c - the checkpoint files of `ndem run` (checkpoint_out.h). */
#include "checkpoint_out.h"

#include "decomp_grid.h"
#include "job.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Doubles as C99 hex floats ("%a"): strtod reads back the same bits. */
static void add_exact(cJSON *o, const char *name, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%a", v);
    cJSON_AddStringToObject(o, name, buf);
}

static int get_exact(const cJSON *v, double *out)
{
    if (!cJSON_IsString(v)) return -1;
    char *end;
    *out = strtod(v->valuestring, &end);
    return *end ? -1 : 0;
}

static int write_atomic(const char *dir, const char *name, const void *data, size_t len)
{
    char tmp[4200], path[4200];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(tmp, "wb");
    if (!fp) return -1;
    int rc = fwrite(data, 1, len, fp) == len ? 0 : -1;
    if (fclose(fp)) rc = -1;
    if (rc == 0 && rename(tmp, path)) rc = -1;
    if (rc) remove(tmp);
    return rc;
}

int ndem_ckpt_write(const char *dir, const void *state, size_t len, const ndem_ckpt_meta *m,
                    char *err, size_t err_len)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", (double)m->step);
    add_exact(o, "next_frame", m->next_frame);
    cJSON_AddNumberToObject(o, "frames", (double)m->mark.frames);
    cJSON_AddNumberToObject(o, "series_bytes", (double)m->mark.series_bytes);
    cJSON_AddNumberToObject(o, "index_bytes", (double)m->mark.index_bytes);
    cJSON_AddNumberToObject(o, "pvd_bytes", (double)m->mark.pvd_bytes);
    cJSON_AddNumberToObject(o, "ranks", m->ranks);
    if (m->cuts) {
        cJSON *grid = cJSON_AddArrayToObject(o, "grid");
        for (int a = 0; a < 3; a++) cJSON_AddItemToArray(grid, cJSON_CreateNumber(m->grid[a]));
        cJSON *cuts = cJSON_AddArrayToObject(o, "cuts");
        for (int k = 0; k < m->n_cuts; k++) {
            char buf[64];
            snprintf(buf, sizeof buf, "%a", m->cuts[k]);
            cJSON_AddItemToArray(cuts, cJSON_CreateString(buf));
        }
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    int rc = text && write_atomic(dir, "checkpoint.ndck", state, len) == 0 &&
                     write_atomic(dir, "checkpoint.json", text, strlen(text)) == 0
                 ? 0
                 : -1;
    if (rc) snprintf(err, err_len, "cannot write %s/checkpoint.ndck: %s", dir, strerror(errno));
    free(text);
    return rc;
}

static long get_long(const cJSON *o, const char *name, int *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(v)) *bad = 1;
    return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

int ndem_ckpt_read(const char *dir, void **state, size_t *len, ndem_ckpt_meta *m, char *err,
                   size_t err_len)
{
    memset(m, 0, sizeof *m);
    *state = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.json", dir);
    size_t tl;
    char *text = ndem_read_file(path, &tl);
    if (!text) {
        snprintf(err, err_len, "cannot read %s: %s (no checkpoint to resume from)", path,
                 strerror(errno));
        return -1;
    }
    cJSON *o = cJSON_ParseWithLength(text, tl);
    free(text);
    int bad = !o;
    m->step = get_long(o, "step", &bad);
    m->mark.frames = get_long(o, "frames", &bad);
    m->mark.series_bytes = get_long(o, "series_bytes", &bad);
    m->mark.index_bytes = get_long(o, "index_bytes", &bad);
    m->mark.pvd_bytes = get_long(o, "pvd_bytes", &bad);
    m->ranks = (int)get_long(o, "ranks", &bad);
    bad |= get_exact(cJSON_GetObjectItemCaseSensitive(o, "next_frame"), &m->next_frame) != 0;
    const cJSON *cuts = cJSON_GetObjectItemCaseSensitive(o, "cuts");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(o, "grid");
    if (!bad && cuts) {
        int k = 0;
        if (grid) { /* blocks along x, y, z */
            bad |= !cJSON_IsArray(grid) || cJSON_GetArraySize(grid) != 3;
            for (int a = 0; !bad && a < 3; a++) {
                const cJSON *d = cJSON_GetArrayItem(grid, a);
                m->grid[a] = cJSON_IsNumber(d) ? d->valueint : 0;
                bad |= m->grid[a] < 1;
            }
        } else { /* before the grid: slabs along "axis" */
            int axis = (int)get_long(o, "axis", &bad);
            bad |= axis < 0 || axis > 2;
            for (int a = 0; !bad && a < 3; a++) m->grid[a] = a == axis ? m->ranks : 1;
        }
        if (!bad) {
            ndem_grid g;
            bad = m->grid[0] * m->grid[1] * m->grid[2] != m->ranks || ndem_grid_init(&g, m->grid);
            if (!bad) m->n_cuts = ndem_grid_cut_count(&g), ndem_grid_free(&g);
        }
        bad |= !cJSON_IsArray(cuts) || cJSON_GetArraySize(cuts) != m->n_cuts;
        m->cuts = bad ? NULL : malloc(sizeof(double) * (size_t)(m->n_cuts + 1));
        const cJSON *c;
        cJSON_ArrayForEach(c, cuts) if (m->cuts && get_exact(c, &m->cuts[k++])) bad = 1;
        if (!bad && !m->cuts) bad = 1;
    }
    cJSON_Delete(o);
    if (bad || m->step < 0 || m->ranks < 1 || m->mark.frames < 0 || m->mark.series_bytes < 0 ||
        m->mark.index_bytes < 0) {
        snprintf(err, err_len, "%s is damaged or not an ndem checkpoint description", path);
        ndem_ckpt_meta_free(m);
        return -1;
    }
    snprintf(path, sizeof path, "%s/checkpoint.ndck", dir);
    *state = ndem_read_file(path, len);
    if (!*state) {
        snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
        ndem_ckpt_meta_free(m);
        return -1;
    }
    return 0;
}

void ndem_ckpt_meta_free(ndem_ckpt_meta *m)
{
    free(m->cuts);
    m->cuts = NULL;
}
