/* contact_export.c - a contact network as CSV and JSON text
 * (contact_bin.h; docs/frames.md, "Contact network"). Numbers in the
 * frames' nine-digit format, which carries the stored float32 exactly. */
#include "contact_bin.h"
#include "jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Numbers of a, separated by sep, each with room reserved first. */
static void numbers(ndem_jw *w, const double *a, long n, const char *sep)
{
    size_t sl = strlen(sep);
    if (ndem_jw_reserve(w, (size_t)n * (NDEM_JW_G9_MAX + sl) + NDEM_JW_NUM_MAX) != 0) return;
    char *p = w->buf + w->len;
    for (long i = 0; i < n; i++) {
        if (i) {
            memcpy(p, sep, sl);
            p += sl;
        }
        p += ndem_jw_format_g9(p, a[i]);
    }
    w->len = (size_t)(p - w->buf);
}

static void integer(ndem_jw *w, long v)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%ld", v);
    ndem_jw_raw(w, num, (size_t)k);
}

char *ndem_contacts_to_csv(const ndem_contact_set *s, size_t *len)
{
    long n = s->count > 0 ? s->count : 0;
    ndem_jw w;
    ndem_jw_init(&w, 0);
    const char *head = "a,b,feature,px,py,pz,nx,ny,nz,fn,ftx,fty,ftz,mrx,mry,mrz\n";
    ndem_jw_raw(&w, head, strlen(head));
    for (long i = 0; i < n; i++) {
        integer(&w, s->a[i]);
        ndem_jw_raw(&w, ",", 1);
        integer(&w, s->b[i]);
        ndem_jw_raw(&w, ",", 1);
        integer(&w, s->feature[i]);
        const double *cols[] = {&s->points[3 * i], &s->normals[3 * i], &s->normal_forces[i],
                                &s->tangential_forces[3 * i], &s->rolling_torques[3 * i]};
        const int per[] = {3, 3, 1, 3, 3};
        for (int c = 0; c < 5; c++) {
            ndem_jw_raw(&w, ",", 1);
            numbers(&w, cols[c], per[c], ",");
        }
        ndem_jw_raw(&w, "\n", 1);
    }
    char *out = ndem_jw_finish(&w);
    *len = out ? strlen(out) : 0;
    return out;
}

static void longs_member(ndem_jw *w, const char *key, const long *a, long n)
{
    ndem_jw_key(w, key);
    ndem_jw_raw(w, "[", 1);
    for (long i = 0; i < n; i++) {
        if (i) ndem_jw_raw(w, ", ", 2);
        integer(w, a[i]);
    }
    ndem_jw_raw(w, "]", 1);
}

static void ints_member(ndem_jw *w, const char *key, const int *a, long n)
{
    ndem_jw_key(w, key);
    ndem_jw_raw(w, "[", 1);
    for (long i = 0; i < n; i++) {
        if (i) ndem_jw_raw(w, ", ", 2);
        integer(w, a[i]);
    }
    ndem_jw_raw(w, "]", 1);
}

static void numbers_member(ndem_jw *w, const char *key, const double *a, long n)
{
    ndem_jw_key(w, key);
    ndem_jw_raw(w, "[", 1);
    numbers(w, a, n, ", ");
    ndem_jw_raw(w, "]", 1);
}

char *ndem_contacts_to_json(const ndem_contact_set *s, long index, size_t *len)
{
    long n = s->count > 0 ? s->count : 0;
    ndem_jw w;
    ndem_jw_init(&w, 0);
    ndem_jw_begin(&w, '{', 1);
    ndem_jw_klong(&w, "index", index);
    ndem_jw_klong(&w, "step", s->step);
    ndem_jw_knumber(&w, "time", s->time);
    ndem_jw_klong(&w, "contacts", n);
    longs_member(&w, "a", s->a, n);
    longs_member(&w, "b", s->b, n);
    ints_member(&w, "feature", s->feature, n);
    numbers_member(&w, "points", s->points, 3 * n);
    numbers_member(&w, "normals", s->normals, 3 * n);
    numbers_member(&w, "normal_forces", s->normal_forces, n);
    numbers_member(&w, "tangential_forces", s->tangential_forces, 3 * n);
    numbers_member(&w, "rolling_torques", s->rolling_torques, 3 * n);
    ndem_jw_end(&w);
    char *out = ndem_jw_finish(&w);
    *len = out ? strlen(out) : 0;
    return out;
}
