/* contacts.h (internal) - the contact graph: contacts found by the narrow
 * phase (contacts.c), their colouring into packets (rows.c), and the
 * warm-start history of last step's impulses. */
#ifndef NDEM_CONTACTS_H
#define NDEM_CONTACTS_H

#include "broadphase.h"
#include "rows.h"

#include <stdint.h>

struct ndem_sim;

/* Candidate contacts in pair order: key_b >= 0 is a particle, key_b < 0 a
 * geometry feature (-1 - (geometry * 8 + feature)). */
typedef struct ndem_contacts {
    long count, capacity;
    int *key_a, *key_b;
    int *slot;   /* row of the contact: packet * NDEM_LANES + lane */
    long *start; /* per body: first contact of the body (CSR), count + 1 */
    long start_capacity;
    ndem_packet *packets; /* colour after colour */
    unsigned char *fill;  /* per packet: lanes in use (from lane 0) */
    ndem_row_cold *cold;  /* per row */
    float *residual;      /* 3 per packet: sums of its lanes' residuals */
    long packet_count, packet_capacity;
    ndem_f8 *vs; /* velocity slots: v, w, inverse mass, inverse inertia */
    long slot_count, slot_capacity;
    double *ug; /* 6 per geometry row: surface velocity at the contact, angular velocity */
    long ug_capacity;
    long geometry_rows;
    ndem_fv *impact_v;      /* per packet: impact stage target speeds */
    ndem_fv *impact_lam;    /* 6 per packet: the impact stage's own impulses */
    unsigned *impact_lanes; /* per packet: lanes in the impact stage (bits) */
    long impact_capacity;
    ndem_pair_block *blocks; /* narrow-phase buffers, one per block of bodies */
    long block_capacity;
    int color_count;
    long color_start[66]; /* colour c: packets [color_start[c], color_start[c+1]) */
    uint64_t *color_mask; /* per body, colouring scratch */
    long mask_capacity;
    int *island; /* per body: union-find parent for the impact stage */
    long island_capacity;
} ndem_contacts;

/* Warm-start history: last step's contacts in pair order with their
 * impulses as world vectors, so a rotated tangent basis can be re-projected. */
typedef struct ndem_history {
    long bodies; /* bodies covered by start */
    long count;
    long *start; /* bodies + 1 */
    int *key_b;
    float *lam; /* 7 per contact: normal, friction vector, rolling vector */
    long capacity, start_capacity;
} ndem_history;

/* The narrow phase: this step's contacts from the lists and the geometry. */
int ndem_contacts_build(struct ndem_sim *sim, double skin);
/* Greedy colouring into packets (rows.c). */
int ndem_contacts_color(struct ndem_sim *sim);
int ndem_contacts_store_history(struct ndem_sim *sim);
void ndem_contacts_destroy(ndem_contacts *c, ndem_history *h);

/* Where a contact touches (PHYSICS.md "Bodies and contacts"), shared by the
 * NDEM rows and the smooth-DEM forces: unit normal n from a to b, overlap
 * delta (negative: gap), lever arms la, lb (the contact point is the middle
 * of the overlap), effective diameter d* (a wall counts as infinitely
 * large), b's material, and for geometry (b < 0) the surface velocity at the
 * contact point and the angular velocity in ug. */
typedef struct ndem_contact_geom {
    double n[3];
    double delta, la, lb, d_eff;
    int b; /* particle index, or -1 - geometry index */
    int material_b;
    double ug[6];
} ndem_contact_geom;
void ndem_contact_geometry(const struct ndem_sim *sim, int a, int key, ndem_contact_geom *g);

#endif
