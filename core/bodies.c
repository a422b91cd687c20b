/* bodies.c - particle storage: one array per quantity, grown by doubling. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **p, size_t elem, long capacity)
{
    void *q = realloc(*p, elem * (size_t)capacity);
    if (!q) return -1;
    *p = q;
    return 0;
}

int ndem_bodies_reserve(ndem_bodies *b, long capacity)
{
    if (capacity <= b->capacity) return 0;
    long cap = b->capacity > 0 ? b->capacity : 64;
    while (cap < capacity) cap *= 2;
    if (grow((void **)&b->pos, 3 * sizeof(double), cap) ||
        grow((void **)&b->quat, 4 * sizeof(double), cap) ||
        grow((void **)&b->vel, 6 * sizeof(double), cap) ||
        grow((void **)&b->radius, sizeof(double), cap) ||
        grow((void **)&b->inv_mass, sizeof(double), cap) ||
        grow((void **)&b->inv_inertia, sizeof(double), cap) ||
        grow((void **)&b->material, sizeof(int), cap) ||
        grow((void **)&b->shape, sizeof(int), cap) || grow((void **)&b->id, sizeof(long), cap) ||
        grow((void **)&b->where, sizeof(long), cap))
        return -1;
    b->capacity = cap;
    return 0;
}

long ndem_bodies_add(ndem_bodies *b, const double *pos, double radius, const double *vel,
                     int material, double density)
{
    if (ndem_bodies_reserve(b, b->count + 1)) return -1;
    long i = b->count++;
    memcpy(&b->pos[3 * i], pos, 3 * sizeof(double));
    b->quat[4 * i] = 1.0;
    b->quat[4 * i + 1] = b->quat[4 * i + 2] = b->quat[4 * i + 3] = 0.0;
    for (int k = 0; k < 3; k++) {
        b->vel[6 * i + k] = vel ? vel[k] : 0.0;
        b->vel[6 * i + 3 + k] = 0.0;
    }
    double m = density * 4.0 / 3.0 * M_PI * radius * radius * radius;
    b->radius[i] = radius;
    b->inv_mass[i] = 1.0 / m;
    b->inv_inertia[i] = 1.0 / (0.4 * m * radius * radius);
    b->material[i] = material;
    b->shape[i] = -1;
    b->id[i] = i;
    b->where[i] = i;
    return i;
}

void ndem_bodies_destroy(ndem_bodies *b)
{
    free(b->pos);
    free(b->quat);
    free(b->vel);
    free(b->radius);
    free(b->inv_mass);
    free(b->inv_inertia);
    free(b->material);
    free(b->shape);
    free(b->id);
    free(b->where);
    memset(b, 0, sizeof *b);
}
