/* checks.c - the invariants that hold between the stages of a step
 * (checks.h), for checked builds (NDEM_CHECKS=1, the test build). Every
 * function returns at once in release builds. */
#include "checks.h"
#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ndem_check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ndem check failed: %s:%d: %s: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void ndem_check_bodies(const ndem_sim *sim)
{
    if (!NDEM_CHECKS || sim->failed) return;
    const ndem_bodies *b = &sim->bodies;
    for (long i = 0; i < b->count; i++) {
        const double *x = &b->pos[3 * i], *v = &b->vel[6 * i], *q = &b->quat[4 * i];
        for (int k = 0; k < 3; k++) NDEM_CHECK(isfinite(x[k]), "body %ld position[%d]", i, k);
        for (int k = 0; k < 6; k++) NDEM_CHECK(isfinite(v[k]), "body %ld velocity[%d]", i, k);
        double qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        NDEM_CHECK(fabs(qq - 1.0) < 1e-9, "body %ld quaternion |q|^2 = %.17g", i, qq);
        NDEM_CHECK(b->id[i] >= 0 && b->id[i] < b->count && b->where[b->id[i]] == i,
                   "body %ld creation id %ld", i, b->id[i]);
    }
}

/* start[0] = 0, start[i] <= start[i + 1], start[n] = count */
static void check_csr(const long *start, long n, long count, const char *what)
{
    NDEM_CHECK(start[0] == 0, "%s: start[0] = %ld", what, start[0]);
    for (long i = 0; i < n; i++)
        NDEM_CHECK(start[i] <= start[i + 1], "%s: start[%ld] = %ld > start[%ld] = %ld", what, i,
                   start[i], i + 1, start[i + 1]);
    NDEM_CHECK(start[n] == count, "%s: start[%ld] = %ld, count %ld", what, n, start[n], count);
}

void ndem_check_lists(const ndem_sim *sim)
{
    if (!NDEM_CHECKS) return;
    const ndem_neighbours *nl = &sim->neighbours;
    long n = sim->bodies.count;
    if (n == 0) return;
    NDEM_CHECK(nl->valid && nl->bodies == n, "lists cover %ld of %ld bodies", nl->bodies, n);
    check_csr(nl->start, n, nl->count, "Verlet lists");
    for (long i = 0; i < n; i++)
        for (long k = nl->start[i]; k < nl->start[i + 1]; k++)
            NDEM_CHECK(nl->j[k] > (k > nl->start[i] ? nl->j[k - 1] : i) && nl->j[k] < n,
                       "list of body %ld: neighbour %d out of order or range", i, nl->j[k]);
}

/* A key of body a in range: b a particle above a, or a geometry feature. */
static void check_key(const ndem_sim *sim, long a, ndem_contact_key key, const char *what)
{
    long n = sim->bodies.count;
    NDEM_CHECK(key.a == a, "%s: key of body %ld has a = %d", what, a, key.a);
    if (ndem_key_is_particle(key))
        NDEM_CHECK(key.b > a && key.b < n, "%s: body %ld touches particle %d of %ld", what, a,
                   key.b, n);
    else
        NDEM_CHECK(key.b >= 0 && key.b < sim->geometry_count &&
                       key.feature < ndem_geometry_feature_count(&sim->geometry[key.b]),
                   "%s: body %ld touches geometry %d feature %d (%d geometries)", what, a, key.b,
                   key.feature, sim->geometry_count);
}

void ndem_check_contacts(const ndem_sim *sim)
{
    if (!NDEM_CHECKS) return;
    const ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count;
    check_csr(c->start, n, c->count, "contacts");
    for (long a = 0; a < n; a++)
        for (long k = c->start[a]; k < c->start[a + 1]; k++) {
            check_key(sim, a, c->key[k], "contacts");
            NDEM_CHECK(k == c->start[a] || ndem_key_before(c->key[k - 1], c->key[k]),
                       "contacts of body %ld not in pair order at %ld", a, k);
        }
}

void ndem_check_colors(const ndem_sim *sim)
{
    if (!NDEM_CHECKS) return;
    const ndem_contacts *c = &sim->contacts;
    NDEM_CHECK(c->color_count >= 0 && c->color_count <= NDEM_COLOR_SETS, "%d colour sets",
               c->color_count);
    NDEM_CHECK(c->color_start[0] == 0 && c->color_start[c->color_count] == c->packet_count,
               "colour sets cover packets %ld to %ld of %ld", c->color_start[0],
               c->color_start[c->color_count], c->packet_count);
    for (long p = 0; p < c->packet_count; p++)
        NDEM_CHECK(c->fill[p] >= 1 && c->fill[p] <= NDEM_LANES, "packet %ld fill %d", p,
                   c->fill[p]);
    for (int q = 0; q < c->color_count; q++)
        NDEM_CHECK(c->color_start[q] <= c->color_start[q + 1], "colour %d starts after %d", q,
                   q + 1);
    for (long k = 0; k < c->count; k++) {
        long at = c->slot[k];
        NDEM_CHECK(at >= 0 && at / NDEM_LANES < c->packet_count &&
                       at % NDEM_LANES < c->fill[at / NDEM_LANES],
                   "contact %ld in row %ld", k, at);
    }
}

void ndem_check_rows(const ndem_sim *sim)
{
    if (!NDEM_CHECKS) return;
    const ndem_contacts *c = &sim->contacts;
    long n = sim->bodies.count;
    int zero = (int)(c->slot_count - 1);
    for (long p = 0; p < c->packet_count; p++) {
        const ndem_packet *P = &c->packets[p];
        for (int l = 0; l < NDEM_LANES; l++) {
            if (l < c->fill[p]) {
                NDEM_CHECK(P->a[l] >= 0 && P->a[l] < zero && P->b[l] >= 0 && P->b[l] < zero,
                           "packet %ld lane %d: slots %d, %d of %d", p, l, P->a[l], P->b[l], zero);
                continue;
            }
            NDEM_CHECK(P->a[l] == zero && P->b[l] == zero,
                       "packet %ld lane %d past fill %d: slots %d, %d, not the zero slot %d", p, l,
                       c->fill[p], P->a[l], P->b[l], zero);
            NDEM_CHECK(P->s[l] == 0.0f && P->sig_n[l] == 0.0f && P->lam[0][l] == 0.0f,
                       "packet %ld lane %d past fill %d is not zeros", p, l, c->fill[p]);
        }
    }
    long *owner = malloc(sizeof(long) * (size_t)(n > 0 ? n : 1));
    NDEM_CHECK(owner != NULL, "out of memory checking the colours");
    /* no two rows of one colour share a dynamic body: owner[i] is the last
     * packet of the current colour that touched body i */
    for (long i = 0; i < n; i++) owner[i] = -1;
    for (int q = 0; q < c->color_count && q < NDEM_COLORS; q++) {
        for (long p = c->color_start[q]; p < c->color_start[q + 1]; p++) {
            const ndem_packet *P = &c->packets[p];
            for (int l = 0; l < c->fill[p]; l++) {
                int ab[2] = {P->a[l], P->b[l]};
                for (int s = 0; s < 2; s++) {
                    if (ab[s] >= n) continue; /* a geometry's own slot */
                    NDEM_CHECK(owner[ab[s]] < c->color_start[q],
                               "colour %d: body %d in two rows (packets %ld and %ld)", q, ab[s],
                               owner[ab[s]], p);
                    owner[ab[s]] = p;
                }
            }
        }
    }
    free(owner);
    for (int q = 0; q < 8; q++)
        NDEM_CHECK(c->vs[zero][q] == 0.0f, "zero slot %d: field %d = %g", zero, q,
                   (double)c->vs[zero][q]);
}

void ndem_check_history(const ndem_sim *sim)
{
    if (!NDEM_CHECKS) return;
    const ndem_history *h = &sim->history;
    check_csr(h->start, h->bodies, h->count, "history");
    for (long a = 0; a < h->bodies; a++)
        for (long k = h->start[a]; k < h->start[a + 1]; k++) {
            check_key(sim, a, ndem_key_with_a((int)a, h->key[k]), "history");
            NDEM_CHECK(k == h->start[a] || ndem_key_before(ndem_key_with_a((int)a, h->key[k - 1]),
                                                           ndem_key_with_a((int)a, h->key[k])),
                       "history of body %ld not sorted at %ld", a, k);
        }
}
