/* frame_json.c - an engine frame as a JSON frame (docs/frames.md, "JSON
 * frame"). Frames hold up to millions of numbers, so the text goes straight
 * into one buffer sized up front, with the fast nine-digit formatter. */
#include "frame_json.h"
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes "key": [a0, a1, ...] for n numbers (an empty array when a is NULL). */
static void array_member(ndem_jw *w, const char *key, const double *a, long n)
{
    ndem_jw_key(w, key);
    if (!a) n = 0;
    /* Each number plus ", " fits in NDEM_JW_G9_MAX + 2 bytes; the formatter
     * needs NDEM_JW_NUM_MAX bytes of room for its scratch. */
    if (ndem_jw_reserve(w, (size_t)n * (NDEM_JW_G9_MAX + 2) + NDEM_JW_NUM_MAX + 2) != 0) return;
    char *p = w->buf + w->len;
    *p++ = '[';
    for (long i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
            *p++ = ' ';
        }
        p += ndem_jw_format_g9(p, a[i]);
    }
    *p++ = ']';
    w->len = (size_t)(p - w->buf);
}

/* "key": [m0, m1, ...] of integers ([] when the frame has none). */
static void ints_member(ndem_jw *w, const char *key, const int *m, long n)
{
    ndem_jw_key(w, key);
    if (!m) n = 0;
    if (ndem_jw_reserve(w, (size_t)n * 13 + 2) != 0) return;
    char *p = w->buf + w->len;
    *p++ = '[';
    for (long i = 0; i < n; i++) p += sprintf(p, i ? ", %d" : "%d", m[i]);
    *p++ = ']';
    w->len = (size_t)(p - w->buf);
}

/* "geometry": [{"index", "name"?, "position", "orientation", "min"?,
 * "max"?}, ...]: the poses, and a box's faces where its walls are now,
 * exact ([] when the frame has none). */
static void geometry_member(ndem_jw *w, const ndem_frame *f, const char *const *names)
{
    ndem_jw_key(w, "geometry");
    ndem_jw_begin(w, '[', 0);
    for (long g = 0; f->geometry_poses && g < f->geometry_count; g++) {
        ndem_jw_next(w);
        ndem_jw_begin(w, '{', 1);
        ndem_jw_klong(w, "index", g);
        if (names && names[g] && names[g][0]) ndem_jw_kstring(w, "name", names[g]);
        ndem_jw_kvec3(w, "position", &f->geometry_poses[7 * g]);
        ndem_jw_kquat(w, "orientation", &f->geometry_poses[7 * g + 3]);
        if (f->geometry_extents && !isnan(f->geometry_extents[6 * g])) { /* a box with walls */
            ndem_jw_kvec3(w, "min", &f->geometry_extents[6 * g]);
            ndem_jw_kvec3(w, "max", &f->geometry_extents[6 * g + 3]);
        }
        ndem_jw_end(w);
    }
    ndem_jw_end(w);
}

char *ndem_frame_to_json(const ndem_frame *frame, long index, const char *const *names)
{
    if (!frame) return NULL;
    long n = frame->count > 0 ? frame->count : 0;
    ndem_jw w;
    ndem_jw_init(&w, 0);
    if (ndem_jw_reserve(&w, (size_t)n * 10 * 12 + 256) != 0) /* typical size */
        return ndem_jw_finish(&w);
    ndem_jw_begin(&w, '{', 1);
    ndem_jw_klong(&w, "index", index);
    ndem_jw_klong(&w, "step", frame->step);
    ndem_jw_knumber(&w, "time", frame->time);
    ndem_jw_klong(&w, "particles", n);
    array_member(&w, "positions", frame->positions, 3 * n);
    array_member(&w, "radii", frame->radii, n);
    array_member(&w, "velocities", frame->velocities, 3 * n);
    array_member(&w, "angular_velocities", frame->angular_velocities, 3 * n);
    ints_member(&w, "materials", frame->materials, n);
    if (frame->shapes) { /* non-spherical particles: their turn shows */
        array_member(&w, "orientations", frame->orientations, 4 * n);
        ints_member(&w, "shapes", frame->shapes, n);
    }
    geometry_member(&w, frame, names);
    ndem_jw_end(&w);
    return ndem_jw_finish(&w);
}
