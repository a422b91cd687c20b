/* contacts.h (internal) - the contact graph: contacts found by the narrow
 * phase (contacts.c), their colouring into packets (rows.c), and the
 * warm-start history of last step's impulses. */
#ifndef NDEM_CONTACTS_H
#define NDEM_CONTACTS_H

#include "broadphase.h"
#include "rows.h"
#include "vec.h"

#include <stdint.h>

struct ndem_sim;

/* A contact's key: body a (a particle, the lower index of a pair) touches
 * b, which is a particle when feature is NDEM_KEY_PARTICLE, otherwise a
 * geometry index and feature which of its features (a face, a cap; later a
 * mesh triangle, or NDEM_KEY_BODY-like kinds for rigid bodies). Keys are
 * equal when all three fields are; the warm start matches them. */
typedef struct ndem_contact_key {
    int a, b, feature;
} ndem_contact_key;
#define NDEM_KEY_PARTICLE (-1)

static inline int ndem_key_is_particle(ndem_contact_key k) { return k.feature < 0; }

/* A key without body a, for arrays in CSR form by a (the warm-start history):
 * a is the row the entry sits in, so storing it again would cost 4 bytes an
 * entry. */
typedef struct ndem_hist_key {
    int b, feature;
} ndem_hist_key;
static inline ndem_hist_key ndem_hist_key_of(ndem_contact_key k)
{
    return (ndem_hist_key){k.b, k.feature};
}
static inline ndem_contact_key ndem_key_with_a(int a, ndem_hist_key k)
{
    return (ndem_contact_key){a, k.b, k.feature};
}
static inline int ndem_key_same(ndem_contact_key x, ndem_contact_key y)
{
    return x.b == y.b && x.feature == y.feature && x.a == y.a;
}

/* Pair order among the keys of one body a: geometry features first, by
 * geometry then feature, then particles by index. */
static inline int ndem_key_before(ndem_contact_key x, ndem_contact_key y)
{
    int px = ndem_key_is_particle(x), py = ndem_key_is_particle(y);
    if (px != py) return py;
    return x.b != y.b ? x.b < y.b : x.feature < y.feature;
}

/* The checkpoint's form of a key. Format 4: b and feature as two ints
 * (feature -1 for a particle; a mesh has many features). Format 3, still
 * read: one int, b for a particle, -1 - (geometry * 8 + feature) for a
 * geometry feature (features below 8). */
#define NDEM_KEY_INTS 2
static inline void ndem_key_put(ndem_contact_key k, int out[NDEM_KEY_INTS])
{
    out[0] = k.b;
    out[1] = k.feature;
}
static inline ndem_contact_key ndem_key_get(int a, const int in[NDEM_KEY_INTS])
{
    return (ndem_contact_key){a, in[0], in[1] < 0 ? NDEM_KEY_PARTICLE : in[1]};
}
static inline ndem_contact_key ndem_key_unpack3(int a, int packed)
{
    if (packed >= 0) return (ndem_contact_key){a, packed, NDEM_KEY_PARTICLE};
    return (ndem_contact_key){a, (-1 - packed) / 8, (-1 - packed) % 8};
}

/* The greedy colouring (rows.c) gives each body a mask of the colours its
 * rows use: NDEM_COLORS colours, one bit each. A row that finds no free
 * colour goes to the overflow set, solved serially after the colours, one
 * row per packet (Box2D's overflow constraints). color_start has one entry
 * per set and one past the last. */
typedef uint64_t ndem_color_mask;
#define NDEM_COLORS 64
#define NDEM_COLOR_OVERFLOW NDEM_COLORS
#define NDEM_COLOR_SETS (NDEM_COLORS + 1)
#define NDEM_COLOR_MASK_FULL (~(ndem_color_mask)0)

/* Keys found by one block of NDEM_PAIR_BLOCK bodies in the narrow phase
 * (contacts.c), without a: the join takes it from the per-body counts. */
#define NDEM_PAIR_BLOCK 512
typedef struct ndem_key_block {
    ndem_hist_key *key;
    long count, capacity;
    int own; /* 1: key is the block's own allocation; 0: a slice of the velocity slots */
} ndem_key_block;

/* Smooth DEM's contact skin (contact_skin.c): the particle pairs within
 * r_i + r_j + reach at its build, kept while no pair can have closed that
 * reach; and which bodies had no geometry within reach, while the geometry
 * stands still. */
typedef struct ndem_contact_skin {
    int configured; /* target read (NDEM_CONTACT_SKIN) */
    double target;  /* wanted reach in smallest radii; 0: off */
    int valid, geo_static;
    long bodies, list_builds; /* the body count and the lists' build at the build */
    double reach;             /* of the build */
    double *x0;               /* 3 per body: positions at the build */
    unsigned char *near;      /* per body: a geometry within reach at the build */
    long *start;              /* bodies + 1 */
    int *j;                   /* the pairs of each body, ascending */
    long count, capacity, start_capacity, body_capacity;
    struct ndem_geometry_pose *pose; /* the poses at the build (geo_static) */
    int pose_count;
    long builds; /* how many times the skin was built (tests) */
} ndem_contact_skin;

/* Candidate contacts in pair order: by a, then the geometry features of a
 * in geometry order, then the particles b > a ascending. */
typedef struct ndem_contacts {
    long count, capacity;
    ndem_contact_key *key;
    int *slot;   /* row of the contact: packet * NDEM_LANES + lane */
    long *start; /* per body: first contact of the body (CSR), count + 1 */
    long start_capacity;
    ndem_packet *packets;       /* colour after colour */
    ndem_packet_bounds *bounds; /* per packet; NULL without row bounds (rows.h) */
    unsigned char *fill;        /* per packet: lanes in use (from lane 0) */
    ndem_row_cold *cold;        /* per row */
    float *residual;            /* 3 per packet: sums of its lanes' residuals */
    long packet_count, packet_capacity;
    ndem_f8 *vs; /* velocity slots: v, w, inverse mass, inverse inertia */
    long slot_count, slot_capacity;
    double *ug; /* 6 per geometry row: surface velocity at the contact, angular velocity */
    long ug_capacity;
    long geometry_rows;
    ndem_fv *impact_v; /* per packet (packet_capacity): impact stage target speeds */
    /* 6 per packet: the impact stage's own impulses, in the history's buffer
     * (ndem_history_scratch) from the impact stage to the end of the
     * continuous sweeps, then in the packets' spent fields (ndem_packet.impact) */
    ndem_fv *impact_lam;
    unsigned *impact_lanes; /* per packet: lanes in the impact stage (bits) */
    long impact_capacity;   /* of impact_lanes */
    ndem_key_block *blocks; /* narrow-phase buffers, one per block of bodies */
    long block_capacity;
    int color_count;                       /* sets in use: colours, then the overflow set if any */
    long color_start[NDEM_COLOR_SETS + 1]; /* set c: packets [color_start[c], color_start[c+1]) */
    /* per body, the colouring's masks before the first step's packets
     * (afterwards in the last step's packets, rows.c); the impact stage's
     * union-find uses the history's buffer (solver.c) */
    ndem_color_mask *color_mask;
    long mask_capacity;
    ndem_contact_skin skin; /* smooth DEM only */
} ndem_contacts;

/* Warm-start history: last step's contacts in pair order with their
 * impulses as world vectors, so a rotated tangent basis can be re-projected.
 * Entry k belongs to body a when start[a] <= k < start[a + 1]. */
typedef struct ndem_history {
    long bodies; /* bodies covered by start */
    long count;
    long *start;        /* bodies + 1 */
    ndem_hist_key *key; /* b and feature; a from start */
    float *lam;         /* 7 per contact: normal, friction vector, rolling vector */
    long capacity, start_capacity;
    size_t lam_bytes; /* of lam (64-byte aligned): at least 7 floats a key, or the scratch */
} ndem_history;

/* Makes h->lam hold at least `bytes` (64-byte aligned) without keeping its
 * contents; 0, or -1 out of memory (contacts.c). */
int ndem_history_lam_reserve(ndem_history *h, size_t bytes);
/* The history's impulses as the impact stage's scratch: they are dead from
 * the warm start (prepare) to their store at the end of the step, and the
 * impact stage's impulses live within that (solver.c). NULL out of memory. */
void *ndem_history_scratch(ndem_history *h, size_t bytes);

/* The last step's packets as a scratch for the broad phase (the list
 * build's blocks, broadphase.c): dead from the start of a step to its
 * colouring, which rewrites them (between steps the contact list reads them).
 * *bytes: the part the last step touched (so resident already); NULL and 0
 * before the first NDEM step. */
void *ndem_contacts_spent(const struct ndem_sim *sim, size_t *bytes);
/* The narrow phase: this step's contacts from the lists and the geometry. */
int ndem_contacts_build(struct ndem_sim *sim, double skin);
/* Smooth DEM's narrow phase through the contact skin: 1 when it built the
 * contacts, 0 when the skin does not apply (the caller searches), -1 out of
 * memory (contact_skin.c). */
int ndem_contact_skin_build(struct ndem_sim *sim, double skin);
void ndem_contact_skin_destroy(ndem_contact_skin *s);
/* The geometry contacts of body i, appended to blk (contacts.c). */
int ndem_body_geometry_contacts(const struct ndem_sim *sim, long i, double skin,
                                ndem_key_block *blk);
/* Doubles a block's buffer; 0, or -1 out of memory (contacts.c). */
int ndem_key_block_grow(ndem_key_block *blk);
/* Appends a key to a block (inline: the narrow phase pushes every contact
 * of every step); 0, or -1 out of memory. */
static inline int ndem_key_block_push(ndem_key_block *blk, ndem_contact_key key)
{
    if (blk->count == blk->capacity && ndem_key_block_grow(blk)) return -1;
    blk->key[blk->count++] = ndem_hist_key_of(key);
    return 0;
}
/* Appends m particle keys (b = j[0 .. m)) at once: one capacity check, then
 * plain stores (the contact skin's key pass emits every kept pair every
 * step); 0, or -1 out of memory. */
static inline int ndem_key_block_push_particles(ndem_key_block *blk, const int *j, long m)
{
    if (m <= 0) return 0; /* an empty block may have no array yet */
    while (blk->capacity - blk->count < m)
        if (ndem_key_block_grow(blk)) return -1;
    ndem_hist_key *out = &blk->key[blk->count];
    for (long k = 0; k < m; k++) out[k] = (ndem_hist_key){j[k], NDEM_KEY_PARTICLE};
    blk->count += m;
    return 0;
}
/* A per-body candidate source: body i's candidates are j[start[i] .. start[i + 1]),
 * each j > i, ascending (the Verlet lists, the contact skin's pairs, or another
 * broad phase's lists). */
typedef struct ndem_candidates {
    const long *start;
    const int *j;
} ndem_candidates;
/* What the block loop does for body i and its m candidates cj: appends its keys
 * to blk in pair order; 0, or -1 out of memory. */
typedef int (*ndem_body_pass)(const struct ndem_sim *sim, long i, const int *cj, long m,
                              ndem_key_block *blk, void *arg);
/* The narrow phase's one block loop (contacts.c): blocks of NDEM_PAIR_BLOCK
 * bodies in parallel, each into its own buffer of contacts.blocks (joined in
 * block order afterwards, so the order does not depend on the thread count);
 * count[i + 1] = the keys body i added. 0, or -1 out of memory. */
int ndem_block_loop(struct ndem_sim *sim, ndem_candidates cand, ndem_body_pass pass, void *arg,
                    long *count);
/* Makes room for n key blocks; joins the blocks' keys into the contacts (contacts.c). */
int ndem_key_blocks_reserve(ndem_key_block **blocks, long *capacity, long n);
int ndem_contacts_join(struct ndem_sim *sim, long nblocks);
/* Greedy colouring into packets (rows.c). */
int ndem_contacts_color(struct ndem_sim *sim);
int ndem_contacts_store_history(struct ndem_sim *sim);
void ndem_contacts_destroy(ndem_contacts *c, ndem_history *h);

/* Where a contact touches (docs/physics.md, "Contacts"), shared by the
 * NDEM rows and the smooth-DEM forces: unit normal n from a to b, overlap
 * delta (negative: gap), lever arms la, lb (the contact point is the middle
 * of the overlap), effective diameter d* (a wall counts as infinitely
 * large), b's material, and for geometry the surface velocity at the
 * contact point and the angular velocity in ug. */
typedef struct ndem_contact_geom {
    double n[3];
    double delta, la, lb, d_eff;
    int material_b;
    double ug[6];
} ndem_contact_geom;
void ndem_contact_geometry(const struct ndem_sim *sim, ndem_contact_key key, ndem_contact_geom *g);

/* The particle pair part of it (a, b particles; ug is not touched), inline
 * for the smooth-DEM force loop, which calls it for every contact and step. */
static inline void ndem_pair_geometry(const ndem_bodies *b, int a, int pb, ndem_contact_geom *g)
{
    const double *xa = &b->pos[3 * a], *xb = &b->pos[3 * pb];
    double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    double dist = ndem_norm(d);
    double ra = b->radius[a], rb = b->radius[pb];
    for (int q = 0; q < 3; q++) g->n[q] = dist > 0 ? d[q] / dist : (q == 2);
    g->delta = ra + rb - dist;
    g->la = ra - 0.5 * g->delta;
    g->lb = rb - 0.5 * g->delta;
    g->d_eff = 2.0 * ra * rb / (ra + rb); /* (1/d_a + 1/d_b)^-1 */
    g->material_b = b->material[pb];
}

/* Union-find over bodies (the impact stage's islands: solver.c, the
 * general rows, bodies on geometry): the root of i, halving the path. */
static inline int ndem_uf_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

#endif
