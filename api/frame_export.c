/* frame_export.c - frames as VTK XML PolyData and CSV (frame_export.h).
 * Numbers go through the nine-digit formatter of the JSON frame: stored
 * frames are float32, nine digits carry them exactly. */
#include "frame_export.h"
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Writes n tuples of comps numbers of a: numbers in a tuple apart by ' ',
 * tuples by sep. */
static void numbers(ndem_jw *w, const double *a, long n, int comps, char sep)
{
    if (ndem_jw_reserve(w, (size_t)n * comps * (NDEM_JW_G9_MAX + 1) + NDEM_JW_NUM_MAX) != 0) return;
    char *p = w->buf + w->len;
    for (long i = 0; i < n * comps; i++) {
        if (i) *p++ = (i % comps) ? ' ' : sep;
        p += ndem_jw_format_g9(p, a[i]);
    }
    w->len = (size_t)(p - w->buf);
}

static void text(ndem_jw *w, const char *s) { ndem_jw_raw(w, s, strlen(s)); }

static void array_open(ndem_jw *w, const char *type, const char *name, int comps)
{
    char head[200];
    snprintf(head, sizeof head, "        <DataArray type=\"%s\"%s%s%s", type,
             name ? " Name=\"" : "", name ? name : "", name ? "\"" : "");
    text(w, head);
    if (comps > 1) {
        snprintf(head, sizeof head, " NumberOfComponents=\"%d\"", comps);
        text(w, head);
    }
    text(w, " format=\"ascii\">\n          ");
}

static void array_close(ndem_jw *w) { text(w, "\n        </DataArray>\n"); }

/* 0 .. n-1 (ids, vertex connectivity) or 1 .. n (vertex offsets). */
static void counting(ndem_jw *w, long n, long from)
{
    char num[32];
    for (long i = 0; i < n; i++) {
        int k = snprintf(num, sizeof num, "%s%ld", i ? " " : "", i + from);
        ndem_jw_raw(w, num, (size_t)k);
    }
}

char *ndem_frame_to_vtp(const ndem_frame *f, long index, size_t *len)
{
    long n = f->count > 0 ? f->count : 0;
    ndem_jw w;
    ndem_jw_init(&w, 0);
    char line[512];
    text(&w, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n"
             "    <FieldData>\n");
    snprintf(line, sizeof line,
             "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%.17g</DataArray>\n"
             "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%ld</DataArray>\n"
             "      <DataArray type=\"Int64\" Name=\"frame\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%ld</DataArray>\n    </FieldData>\n",
             f->time, f->step, index);
    text(&w, line);
    snprintf(line, sizeof line,
             "    <Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"%ld\" NumberOfLines=\"0\" "
             "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
             n, n);
    text(&w, line);
    text(&w, "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    array_open(&w, "Float32", "radius", 1);
    if (f->radii) numbers(&w, f->radii, n, 1, ' ');
    array_close(&w);
    array_open(&w, "Float32", "velocity", 3);
    if (f->velocities) numbers(&w, f->velocities, n, 3, ' ');
    array_close(&w);
    array_open(&w, "Float32", "speed", 1);
    if (f->velocities &&
        ndem_jw_reserve(&w, (size_t)n * (NDEM_JW_G9_MAX + 1) + NDEM_JW_NUM_MAX) == 0) {
        char *p = w.buf + w.len;
        for (long i = 0; i < n; i++) {
            const double *v = f->velocities + 3 * i;
            if (i) *p++ = ' ';
            /* as NDF1's scalar: the float32 of the double speed */
            p += ndem_jw_format_g9(p, (float)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        w.len = (size_t)(p - w.buf);
    }
    array_close(&w);
    array_open(&w, "Float32", "angular_velocity", 3);
    if (f->angular_velocities) numbers(&w, f->angular_velocities, n, 3, ' ');
    array_close(&w);
    if (f->materials) {
        array_open(&w, "Int32", "material", 1);
        for (long i = 0; i < n; i++) {
            int k = snprintf(line, sizeof line, "%s%d", i ? " " : "", f->materials[i]);
            ndem_jw_raw(&w, line, (size_t)k);
        }
        array_close(&w);
    }
    if (f->shapes) { /* non-spherical particles (bits 7 and 8) */
        array_open(&w, "Float32", "orientation", 4);
        if (f->orientations) numbers(&w, f->orientations, n, 4, ' ');
        array_close(&w);
        array_open(&w, "Int32", "shape", 1);
        for (long i = 0; i < n; i++) {
            int k = snprintf(line, sizeof line, "%s%d", i ? " " : "", f->shapes[i]);
            ndem_jw_raw(&w, line, (size_t)k);
        }
        array_close(&w);
    }
    array_open(&w, "Int64", "id", 1);
    counting(&w, n, 0);
    array_close(&w);
    text(&w, "      </PointData>\n      <Points>\n");
    array_open(&w, "Float32", "position", 3);
    if (f->positions) numbers(&w, f->positions, n, 3, ' ');
    array_close(&w);
    text(&w, "      </Points>\n      <Verts>\n");
    array_open(&w, "Int64", "connectivity", 1);
    counting(&w, n, 0);
    array_close(&w);
    array_open(&w, "Int64", "offsets", 1);
    counting(&w, n, 1);
    array_close(&w);
    text(&w, "      </Verts>\n    </Piece>\n  </PolyData>\n</VTKFile>\n");
    char *out = ndem_jw_finish(&w);
    *len = out ? strlen(out) : 0;
    return out;
}

/* One particle's vector (3 numbers) after a comma, or empty fields. */
static void vec_fields(ndem_jw *w, const double *a, long i)
{
    for (int c = 0; c < 3; c++) {
        ndem_jw_raw(w, ",", 1);
        if (a) numbers(w, a + 3 * i + c, 1, 1, ',');
    }
}

char *ndem_frame_to_csv(const ndem_frame *f, size_t *len)
{
    long n = f->count > 0 ? f->count : 0;
    ndem_jw w;
    ndem_jw_init(&w, 0);
    text(&w, "id,x,y,z,radius,vx,vy,vz,wx,wy,wz");
    text(&w, f->materials ? ",material" : "");
    text(&w, f->shapes ? ",qw,qx,qy,qz,shape\n" : "\n");
    char num[32];
    for (long i = 0; i < n; i++) {
        int k = snprintf(num, sizeof num, "%ld", i);
        ndem_jw_raw(&w, num, (size_t)k);
        vec_fields(&w, f->positions, i);
        ndem_jw_raw(&w, ",", 1);
        if (f->radii) numbers(&w, f->radii + i, 1, 1, ',');
        vec_fields(&w, f->velocities, i);
        vec_fields(&w, f->angular_velocities, i);
        if (f->materials) {
            k = snprintf(num, sizeof num, ",%d", f->materials[i]);
            ndem_jw_raw(&w, num, (size_t)k);
        }
        if (f->shapes) {
            for (int c = 0; c < 4; c++) {
                ndem_jw_raw(&w, ",", 1);
                if (f->orientations) numbers(&w, f->orientations + 4 * i + c, 1, 1, ',');
            }
            k = snprintf(num, sizeof num, ",%d", f->shapes[i]);
            ndem_jw_raw(&w, num, (size_t)k);
        }
        ndem_jw_raw(&w, "\n", 1);
    }
    char *out = ndem_jw_finish(&w);
    *len = out ? strlen(out) : 0;
    return out;
}
