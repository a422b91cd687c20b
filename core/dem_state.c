/* dem_state.c - the smooth-DEM state in a checkpoint: the spring history
 * (keys as checkpoint format 4 writes them, format 3's read too; contacts.h), the
 * dissipated energy and the bonds. */
#include "dem_private.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

/* ---- checkpoint: the spring history and the dissipated energy ---- */

size_t ndem_dem_state_size(const ndem_sim *sim)
{
    const ndem_dem *d = sim->dem;
    return 2 * sizeof(int64_t) + sizeof(double) + sizeof(long) * (size_t)(d->hist_bodies + 1) +
           NDEM_KEY_INTS * sizeof(int) * (size_t)d->hist_count +
           NDEM_DEM_HIST * sizeof(double) * (size_t)d->hist_count + sizeof(int64_t) +
           (3 * sizeof(int) + NDEM_DEM_BOND * sizeof(double)) * (size_t)d->bond_count;
}

void ndem_dem_state_write(const ndem_sim *sim, unsigned char *p)
{
    const ndem_dem *d = sim->dem;
    int64_t hb = d->hist_bodies, hc = d->hist_count;
    memcpy(p, &hb, 8);
    memcpy(p + 8, &hc, 8);
    memcpy(p + 16, &d->dissipated, 8);
    p += 24;
    if (d->hist_start) memcpy(p, d->hist_start, sizeof(long) * (size_t)(hb + 1));
    else memset(p, 0, sizeof(long));
    p += sizeof(long) * (size_t)(hb + 1);
    if (hc > 0) {
        for (int64_t k = 0; k < hc; k++, p += sizeof(int) * NDEM_KEY_INTS) {
            int two[NDEM_KEY_INTS];
            ndem_key_put(d->hist_key[k], two);
            memcpy(p, two, sizeof two);
        }
        memcpy(p, d->hist, NDEM_DEM_HIST * sizeof(double) * (size_t)hc);
        p += NDEM_DEM_HIST * sizeof(double) * (size_t)hc;
    }
    int64_t nb = d->bond_count;
    memcpy(p, &nb, 8);
    p += 8;
    if (nb > 0) {
        size_t ni = sizeof(int) * (size_t)nb;
        memcpy(p, d->bond_a, ni);
        memcpy(p + ni, d->bond_b, ni);
        memcpy(p + 2 * ni, d->bond_broken, ni);
        memcpy(p + 3 * ni, d->bond, NDEM_DEM_BOND * sizeof(double) * (size_t)nb);
    }
}

int ndem_dem_state_read(ndem_sim *sim, const unsigned char *p, size_t len, int key_ints)
{
    ndem_dem *d = sim->dem;
    int64_t hb, hc;
    if (len < 24) return -1;
    memcpy(&hb, p, 8);
    memcpy(&hc, p + 8, 8);
    if (hb < 0 || hc < 0 || hb > sim->bodies.count || (uint64_t)hc > len / sizeof(double))
        return -1;
    size_t need = 24 + sizeof(long) * (size_t)(hb + 1) + sizeof(int) * (size_t)(key_ints * hc) +
                  NDEM_DEM_HIST * sizeof(double) * (size_t)hc + 8;
    if (need > len) return -1;
    int64_t nb;
    memcpy(&nb, p + need - 8, 8);
    if (nb < 0 || (uint64_t)nb > len / (NDEM_DEM_BOND * sizeof(double)) ||
        need + (3 * sizeof(int) + NDEM_DEM_BOND * sizeof(double)) * (size_t)nb != len)
        return -1;
    memcpy(&d->dissipated, p + 16, 8);
    p += 24;
    d->hist_start = malloc(sizeof(long) * (size_t)(hb + 1));
    d->hist_key = malloc(sizeof *d->hist_key * (size_t)(hc + 1));
    d->hist = malloc(NDEM_DEM_HIST * sizeof(double) * (size_t)(hc + 1));
    if (!d->hist_start || !d->hist_key || !d->hist) return -1;
    memcpy(d->hist_start, p, sizeof(long) * (size_t)(hb + 1));
    p += sizeof(long) * (size_t)(hb + 1);
    if (hc > 0) {
        for (int64_t k = 0; k < hc; k++, p += sizeof(int) * (size_t)key_ints) {
            int two[NDEM_KEY_INTS];
            memcpy(two, p, sizeof(int) * (size_t)key_ints);
            /* a from hist_start, below */
            d->hist_key[k] = key_ints == 1 ? ndem_key_unpack3(0, two[0]) : ndem_key_get(0, two);
        }
        memcpy(d->hist, p, NDEM_DEM_HIST * sizeof(double) * (size_t)hc);
        p += NDEM_DEM_HIST * sizeof(double) * (size_t)hc;
    }
    p += 8;
    /* the bonds made from the generators are replaced by the saved ones */
    free(d->bond_a);
    free(d->bond_b);
    free(d->bond_broken);
    free(d->bond);
    size_t ni = sizeof(int) * (size_t)(nb + 1);
    d->bond_a = malloc(ni);
    d->bond_b = malloc(ni);
    d->bond_broken = malloc(ni);
    d->bond = malloc(NDEM_DEM_BOND * sizeof(double) * (size_t)(nb + 1));
    d->bond_count = d->bond_cap = 0;
    if (!d->bond_a || !d->bond_b || !d->bond_broken || !d->bond) return -1;
    if (nb > 0) {
        ni = sizeof(int) * (size_t)nb;
        memcpy(d->bond_a, p, ni);
        memcpy(d->bond_b, p + ni, ni);
        memcpy(d->bond_broken, p + 2 * ni, ni);
        memcpy(d->bond, p + 3 * ni, NDEM_DEM_BOND * sizeof(double) * (size_t)nb);
    }
    for (long i = 0; i < nb; i++)
        if (d->bond_a[i] < 0 || d->bond_b[i] <= d->bond_a[i] || d->bond_b[i] >= sim->bodies.count)
            return -1;
    d->bond_count = nb;
    d->bond_cap = nb + 1;
    for (long i = 0; i < hb; i++) {
        if (d->hist_start[i] < 0 || d->hist_start[i] > d->hist_start[i + 1] ||
            d->hist_start[i + 1] > hc)
            return -1;
        for (long k = d->hist_start[i]; k < d->hist_start[i + 1]; k++) {
            ndem_contact_key *key = &d->hist_key[k];
            key->a = (int)i;
            if (!ndem_key_is_particle(*key) &&
                (key->b < 0 || key->b >= sim->geometry_count ||
                 key->feature >= ndem_geometry_feature_count(&sim->geometry[key->b])))
                return -1;
        }
    }
    if (d->hist_start[0] != 0) return -1;
    d->hist_bodies = hb;
    d->hist_count = hc;
    d->as_b_ok = 0; /* built on the first step */
    d->start_cap = hb + 1;
    d->hist_cap = d->key_cap = hc + 1;
    d->cap = 0;
    return 0;
}
