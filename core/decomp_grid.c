/* decomp_grid.c - blocks of a domain decomposition (decomp_grid.h). */
#include "decomp_grid.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int groups(const ndem_grid *g, int a)
{
    int n = 1;
    for (int q = 0; q < a; q++) n *= g->dims[q];
    return n;
}

int ndem_grid_init(ndem_grid *g, const int dims[3])
{
    memset(g, 0, sizeof *g);
    for (int a = 0; a < 3; a++) g->dims[a] = dims[a] > 0 ? dims[a] : 1;
    for (int a = 0; a < 3; a++) {
        int ng = groups(g, a), d = g->dims[a];
        g->bound[a] = malloc(sizeof(double) * (size_t)ng * (size_t)(d + 1));
        if (!g->bound[a]) {
            ndem_grid_free(g);
            return -1;
        }
        for (int k = 0; k < ng; k++) {
            double *b = &g->bound[a][k * (d + 1)];
            b[0] = -INFINITY, b[d] = INFINITY;
            for (int c = 1; c < d; c++) b[c] = 0;
        }
    }
    return 0;
}

void ndem_grid_free(ndem_grid *g)
{
    for (int a = 0; a < 3; a++) free(g->bound[a]), g->bound[a] = NULL;
}

int ndem_grid_size(const ndem_grid *g) { return g->dims[0] * g->dims[1] * g->dims[2]; }

int ndem_grid_cut_count(const ndem_grid *g)
{
    int n = 0;
    for (int a = 0; a < 3; a++) n += groups(g, a) * (g->dims[a] - 1);
    return n;
}

/* the k-th interior cut in the checkpoint's order: x's, then each slab's
 * y, then each column's z */
static double *cut_at(const ndem_grid *g, int k)
{
    for (int a = 0; a < 3; a++) {
        int d = g->dims[a], here = groups(g, a) * (d - 1);
        if (k < here) return &g->bound[a][k / (d - 1) * (d + 1) + 1 + k % (d - 1)];
        k -= here;
    }
    return NULL;
}

void ndem_grid_get_cuts(const ndem_grid *g, double *out)
{
    for (int k = 0; k < ndem_grid_cut_count(g); k++) out[k] = *cut_at(g, k);
}

void ndem_grid_set_cuts(ndem_grid *g, const double *in)
{
    for (int k = 0; k < ndem_grid_cut_count(g); k++) *cut_at(g, k) = in[k];
}

/* the block of x among d blocks with bounds b[0..d] */
static int block_of(const double *b, int d, double x)
{
    int k = 0;
    while (k < d - 1 && x >= b[k + 1]) k++;
    return k;
}

int ndem_grid_owner(const ndem_grid *g, const double p[3])
{
    int grp = 0;
    for (int a = 0; a < 3; a++) {
        int d = g->dims[a];
        grp = grp * d + block_of(&g->bound[a][grp * (d + 1)], d, p[a]);
    }
    return grp;
}

void ndem_grid_box(const ndem_grid *g, int block, double lo[3], double hi[3])
{
    int idx[3] = {block / (g->dims[1] * g->dims[2]), block / g->dims[2] % g->dims[1],
                  block % g->dims[2]};
    int grp = 0;
    for (int a = 0; a < 3; a++) {
        int d = g->dims[a];
        const double *b = &g->bound[a][grp * (d + 1)];
        lo[a] = b[idx[a]], hi[a] = b[idx[a] + 1];
        grp = grp * d + idx[a];
    }
}

int ndem_grid_within(const ndem_grid *g, int block, const double p[3], double halo)
{
    double lo[3], hi[3];
    ndem_grid_box(g, block, lo, hi);
    for (int a = 0; a < 3; a++)
        if (!(p[a] >= lo[a] - halo && p[a] < hi[a] + halo)) return 0;
    return 1;
}

int ndem_grid_near(const ndem_grid *g, int a, int b, double halo)
{
    double la[3], ha[3], lb[3], hb[3];
    ndem_grid_box(g, a, la, ha);
    ndem_grid_box(g, b, lb, hb);
    for (int q = 0; q < 3; q++)
        if (!(lb[q] - ha[q] < halo && la[q] - hb[q] < halo)) return 0;
    return 1;
}

/* doubles as unsigned keys in the same order (NaN aside) */
static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double of_key(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* a trial cut of the bisection: its key and its index */
typedef struct trial {
    uint64_t mid;
    int j;
} trial;

static int trial_order(const void *x, const void *y)
{
    const trial *p = x, *q = y;
    if (p->mid != q->mid) return p->mid < q->mid ? -1 : 1;
    return (p->j > q->j) - (p->j < q->j);
}

int ndem_grid_balance(ndem_grid *g, long n, const double *x, ndem_grid_sum_fn sum, void *ctx)
{
    int *grp = calloc((size_t)n + 1, sizeof *grp); /* each point's group at this level */
    int most = groups(g, 2) * g->dims[2];
    long *cnt = malloc(sizeof(long) * (size_t)(most + 1));
    long *target = malloc(sizeof(long) * (size_t)(most + 1));
    uint64_t *lo = malloc(sizeof(uint64_t) * (size_t)(most + 1));
    uint64_t *hi = malloc(sizeof(uint64_t) * (size_t)(most + 1));
    trial *tr = malloc(sizeof *tr * (size_t)(most + 1));
    long *acc = malloc(sizeof(long) * (size_t)(most + 1));
    int rc = -1;
    if (!grp || !cnt || !target || !lo || !hi || !tr || !acc) goto done;
    for (int a = 0; a < 3; a++) {
        int ng = groups(g, a), d = g->dims[a], nc = ng * (d - 1);
        if (a > 0) /* the groups of this level: the blocks of the last */
            for (long i = 0; i < n; i++) {
                int pd = g->dims[a - 1];
                grp[i] = grp[i] * pd +
                         block_of(&g->bound[a - 1][grp[i] * (pd + 1)], pd, x[3 * i + a - 1]);
            }
        if (nc == 0) continue;
        for (int k = 0; k < ng; k++) cnt[k] = 0;
        for (long i = 0; i < n; i++) cnt[grp[i]]++;
        sum(ctx, cnt, ng);
        for (int k = 0; k < ng; k++)
            for (int c = 0; c < d - 1; c++) {
                target[k * (d - 1) + c] = (long)((double)cnt[k] * (c + 1) / d);
                lo[k * (d - 1) + c] = 0, hi[k * (d - 1) + c] = UINT64_MAX;
            }
        long *size = malloc(sizeof(long) * (size_t)ng); /* the groups' counts, kept */
        if (!size) goto done;
        memcpy(size, cnt, sizeof(long) * (size_t)ng);
        /* the largest key c with at most target keys below it: the
         * target-th smallest coordinate (0-based) of the group */
        for (int round = 0; round < 64; round++) {
            /* each group's trial cuts in order: a point counts below the
             * cuts from the first above it on, one binary search each */
            for (int j = 0; j < nc; j++) tr[j].mid = lo[j] + (hi[j] - lo[j]) / 2, tr[j].j = j;
            for (int k = 0; k < ng; k++)
                qsort(&tr[k * (d - 1)], (size_t)(d - 1), sizeof *tr, trial_order);
            for (int j = 0; j < nc; j++) acc[j] = 0;
            for (long i = 0; i < n; i++) {
                uint64_t key = key_of(x[3 * i + a]);
                const trial *t = &tr[grp[i] * (d - 1)];
                int l = 0, h = d - 1;
                while (l < h) {
                    int m = (l + h) / 2;
                    if (t[m].mid > key) h = m;
                    else l = m + 1;
                }
                if (l < d - 1) acc[grp[i] * (d - 1) + l]++;
            }
            for (int k = 0; k < ng; k++)
                for (int c = 0; c < d - 1; c++) {
                    int p = k * (d - 1) + c;
                    if (c > 0) acc[p] += acc[p - 1];
                    cnt[tr[p].j] = acc[p];
                }
            sum(ctx, cnt, nc);
            for (int j = 0; j < nc; j++) {
                uint64_t mid = lo[j] + (hi[j] - lo[j]) / 2;
                if (cnt[j] <= target[j]) lo[j] = mid;
                else hi[j] = mid;
            }
        }
        for (int k = 0; k < ng; k++)
            for (int c = 1; c < d; c++)
                g->bound[a][k * (d + 1) + c] = size[k] > 0 ? of_key(lo[k * (d - 1) + c - 1]) : 0;
        free(size);
    }
    rc = 0;
done:
    free(grp), free(cnt), free(target), free(lo), free(hi), free(tr), free(acc);
    return rc;
}

void ndem_grid_auto_dims(int size, const double extent[3], int down, int dims[3])
{
    double best = INFINITY;
    int best_down = 1; /* whether the best cuts `down` */
    dims[0] = size, dims[1] = dims[2] = 1;
    for (int px = 1; px <= size; px++)
        for (int py = 1; px * py <= size; py++) {
            if (size % (px * py)) continue;
            int d[3] = {px, py, size / (px * py)};
            int cuts_down = down >= 0 && d[down] > 1;
            /* the cut faces' total area */
            double area = (d[0] - 1) * extent[1] * extent[2] + (d[1] - 1) * extent[0] * extent[2] +
                          (d[2] - 1) * extent[0] * extent[1];
            if (cuts_down > best_down || (cuts_down == best_down && area >= best)) continue;
            best = area, best_down = cuts_down;
            memcpy(dims, d, sizeof d);
        }
}

int ndem_grid_parse(const char *s, int dims[3])
{
    char tail;
    if (sscanf(s, "%dx%dx%d%c", &dims[0], &dims[1], &dims[2], &tail) != 3) return -1;
    for (int a = 0; a < 3; a++)
        if (dims[a] < 1 || dims[a] > 1 << 20) return -1;
    return 0;
}
