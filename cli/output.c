/* output.c - files of `ndem run` (output.h). */
#include "output.h"

#include "frame_bin.h"
#include "geometry_mesh.h"
#include "series.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_dir(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    return 0;
}

static FILE *open_in(const ndem_output *o, const char *name, const char *mode)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    return fopen(path, mode);
}

/* An earlier run's file, cut back to `bytes` and open for appending. */
static FILE *reopen_at(const ndem_output *o, const char *name, long bytes)
{
    FILE *f = open_in(o, name, "r+");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) || ftell(f) < bytes || ftruncate(fileno(f), (off_t)bytes) ||
        fseek(f, bytes, SEEK_SET)) {
        fclose(f);
        errno = errno ? errno : EINVAL;
        return NULL;
    }
    return f;
}

int ndem_output_open(ndem_output *o, const char *dir, int vtk, const ndem_scene_def *scene,
                     const ndem_output_mark *resume, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->vtk = vtk;
    char frames[4200];
    snprintf(frames, sizeof frames, "%s/frames", dir);
    if (make_dir(dir) || make_dir(frames)) {
        snprintf(err, err_len, "cannot create output directory %s: %s", frames, strerror(errno));
        return -1;
    }
    if (resume) {
        errno = 0;
        o->series = reopen_at(o, "series.csv", resume->series_bytes);
        o->frame_index = reopen_at(o, "frames/index.csv", resume->index_bytes);
        o->frames = resume->frames;
    } else {
        o->series = open_in(o, "series.csv", "w");
        o->frame_index = open_in(o, "frames/index.csv", "w");
    }
    if (!o->series || !o->frame_index) {
        snprintf(err, err_len, "cannot write into %s: %s", dir, strerror(errno));
        ndem_output_close(o);
        return -1;
    }
    char *header = NULL;
    o->row_cap = 1024;
    o->row = malloc(o->row_cap);
    if (!o->row || ndem_series_cols_init(&o->cols, scene) ||
        !(header = ndem_series_header_of(&o->cols))) {
        snprintf(err, err_len, "out of memory");
        ndem_output_close(o);
        return -1;
    }
    if (!resume) fputs(header, o->series);
    free(header);
    if (vtk && ndem_pv_out_open(&o->pv, dir, scene, resume ? resume->pvd_bytes : -1)) {
        snprintf(err, err_len, "cannot write into %s/paraview: %s", dir, strerror(errno));
        ndem_output_close(o);
        return -1;
    }
    if (!resume) fprintf(o->frame_index, "index,step,time,particles,file\n");
    return 0;
}

int ndem_output_mark_now(ndem_output *o, ndem_output_mark *m)
{
    if (fflush(o->series) || fflush(o->frame_index)) return -1;
    m->series_bytes = ftell(o->series);
    m->index_bytes = ftell(o->frame_index);
    m->pvd_bytes = o->vtk ? o->pv.tail_at : -1;
    m->frames = o->frames;
    return m->series_bytes < 0 || m->index_bytes < 0 ? -1 : 0;
}

int ndem_output_series_row(ndem_output *o, const ndem_sim *sim)
{
    ndem_series_cols_sample(&o->cols, sim);
    const ndem_step_stats *s = ndem_sim_stats(sim);
    int n = ndem_series_row(o->row, o->row_cap, s, &o->cols);
    if (n > 0 && (size_t)n >= o->row_cap) { /* more named geometry than the buffer held */
        char *grown = realloc(o->row, (size_t)n + 1);
        if (!grown) return -1;
        o->row = grown;
        o->row_cap = (size_t)n + 1;
        n = ndem_series_row(o->row, o->row_cap, s, &o->cols);
    }
    return n > 0 && (size_t)n < o->row_cap && fputs(o->row, o->series) >= 0 ? 0 : -1;
}

/* particles copied from the engine per chunk of a frame file: the file is
 * written from the engine's arrays without a copy of the whole frame */
#define NDEM_OUTPUT_CHUNK 8192L

/* The chunks of a frame file: from the engine, or from a frame at hand. */
typedef struct frame_source {
    const ndem_sim *sim;
    ndem_frame held; /* the engine's chunk at hand */
    const ndem_frame *whole;
} frame_source;

static int chunk_of(void *arg, long first, long count, ndem_frame *chunk)
{
    frame_source *s = arg;
    if (s->whole) { /* a view into the frame: one chunk */
        *chunk = *s->whole;
        return 0;
    }
    ndem_frame_free(&s->held);
    if (ndem_sim_copy_motion_part(s->sim, first, count, &s->held)) return -1;
    *chunk = s->held;
    return 0;
}

/* frames/NNNNNN.ndf from src */
static int write_frame(ndem_output *o, frame_source *src, long n)
{
    char name[64];
    snprintf(name, sizeof name, "frames/%06ld.ndf", o->frames);
    FILE *fp = open_in(o, name, "wb");
    if (!fp) return -1;
    long chunk = src->whole ? (n > 0 ? n : 1) : NDEM_OUTPUT_CHUNK;
    int rc = ndem_frame_bin_write(fp, o->frames, n, NDEM_FRAME_ALL, chunk, chunk_of, src) < 0;
    if (fclose(fp)) rc = -1;
    return rc ? -1 : 0;
}

/* The frame's line of frames/index.csv, once its files are whole. */
static void index_frame(ndem_output *o, long step, double time, long n)
{
    fprintf(o->frame_index, "%ld,%ld,%.9g,%ld,%06ld.ndf\n", o->frames, step, time, n, o->frames);
    fflush(o->frame_index);
    o->frames++;
}

int ndem_output_frame(ndem_output *o, const ndem_sim *sim)
{
    if (o->vtk) { /* ParaView's files want the whole frame */
        ndem_frame f;
        if (ndem_sim_copy_motion(sim, &f)) return -1;
        int rc = ndem_output_frame_of(o, &f);
        ndem_frame_free(&f);
        return rc;
    }
    frame_source src = {sim, {0}, NULL};
    long n = ndem_sim_particle_count(sim);
    int rc = write_frame(o, &src, n);
    if (rc == 0) index_frame(o, src.held.step, src.held.time, n);
    ndem_frame_free(&src.held);
    return rc;
}

int ndem_output_frame_of(ndem_output *o, const ndem_frame *frame)
{
    frame_source src = {NULL, {0}, frame};
    if (write_frame(o, &src, frame->count) ||
        (o->vtk && ndem_pv_out_frame(&o->pv, frame, o->frames)))
        return -1;
    index_frame(o, frame->step, frame->time, frame->count);
    return 0;
}

int ndem_output_text(const ndem_output *o, const char *name, const char *text)
{
    char tmp[4200], path[4200];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", o->dir, name);
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, fp) == n ? 0 : -1;
    if (fclose(fp)) rc = -1;
    if (rc == 0 && rename(tmp, path)) rc = -1;
    if (rc) remove(tmp);
    return rc;
}

void ndem_output_close(ndem_output *o)
{
    if (o->series) fclose(o->series);
    if (o->frame_index) fclose(o->frame_index);
    o->series = o->frame_index = NULL;
    ndem_series_cols_free(&o->cols);
    ndem_pv_out_close(&o->pv);
    free(o->row);
    o->row = NULL;
    o->row_cap = 0;
}

/* One binary STL: header, count, per triangle its unit normal and corners as
 * float32 and a zero attribute (little-endian, as every supported host). */
static int write_stl(FILE *f, const ndem_mesh *m)
{
    char header[80] = "ndem mesh geometry, placed (binary STL)";
    uint32_t n = (uint32_t)m->n_triangles;
    int ok = fwrite(header, 1, 80, f) == 80 && fwrite(&n, 4, 1, f) == 1;
    for (int t = 0; t < m->n_triangles && ok; t++) {
        const double *p[3];
        for (int k = 0; k < 3; k++) p[k] = m->vertices + 3 * m->triangles[3 * t + k];
        double a[3], b[3], c[3];
        for (int i = 0; i < 3; i++) a[i] = p[1][i] - p[0][i], b[i] = p[2][i] - p[0][i];
        c[0] = a[1] * b[2] - a[2] * b[1];
        c[1] = a[2] * b[0] - a[0] * b[2];
        c[2] = a[0] * b[1] - a[1] * b[0];
        double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        float rec[12];
        for (int i = 0; i < 3; i++) rec[i] = (float)(len > 0 ? c[i] / len : 0.0);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++) rec[3 + 3 * k + i] = (float)p[k][i];
        uint16_t attr = 0;
        ok = fwrite(rec, sizeof rec, 1, f) == 1 && fwrite(&attr, 2, 1, f) == 1;
    }
    return ok ? 0 : -1;
}

int ndem_output_meshes(const ndem_output *o, const ndem_scene_def *s)
{
    int rc = 0, made = 0;
    for (int g = 0; g < s->geometry_count && rc == 0; g++) {
        if (s->geometry[g].type != NDEM_GEOMETRY_MESH || !s->geometry[g].mesh) continue;
        char name[64];
        if (!made++) {
            char dir[4200];
            snprintf(dir, sizeof dir, "%s/meshes", o->dir);
            if (make_dir(dir)) return -1;
        }
        snprintf(name, sizeof name, "meshes/%d.stl", g);
        FILE *f = open_in(o, name, "wb");
        rc = f ? write_stl(f, s->geometry[g].mesh->mesh) : -1;
        if (f && fclose(f)) rc = -1;
    }
    return rc;
}
