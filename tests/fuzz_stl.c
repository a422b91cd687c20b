/* fuzz_stl.c - libFuzzer target for STL loading (`make fuzz`): the bytes go
 * to ndem_stl_parse and, when they parse, to ndem_mesh_build at two weld
 * tolerances; the bytes are also tried as base64 of an STL, and as a soup of
 * doubles given to ndem_mesh_build directly. Besides "no
 * crash, no leak, no hang" it checks the loaders' promises: a refusal always
 * says why, and a built mesh's topology is consistent. */
#include "base64.h"
#include "mesh.h"
#include "stl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_mesh(const ndem_mesh *m, long n_in, const ndem_mesh_report *r)
{
    if (m->n_triangles < 1 || m->n_triangles > n_in || m->n_vertices < 3 ||
        m->n_triangles + r->degenerate + r->duplicate != n_in)
        abort();
    for (int t = 0; t < m->n_triangles; t++) {
        const int *v = m->triangles + 3 * t;
        for (int k = 0; k < 3; k++) {
            if (v[k] < 0 || v[k] >= m->n_vertices || v[k] == v[(k + 1) % 3]) abort();
            int nb = m->neighbours[3 * t + k], o = m->edge_owner[3 * t + k];
            if (nb < NDEM_MESH_NON_MANIFOLD || nb >= m->n_triangles || nb == t) abort();
            if (o < 0 || o > t || (nb >= 0 && o != (t < nb ? t : nb))) abort();
        }
        if (m->group[t] < 0 || m->group[t] >= m->n_groups) abort();
    }
    for (int v = 0; v < m->n_vertices; v++)
        if (m->vertex_owner[v] < 0 || m->vertex_owner[v] >= m->n_triangles) abort();
    if (!(m->area > 0.0) || !isfinite(m->area)) abort();
    if (m->closed && m->oriented && (!(m->volume >= 0.0) || !isfinite(m->inertia[0]))) abort();
}

/* Builds n triangles of soup at two weld tolerances and checks each mesh. */
static void build(const double *soup, long n)
{
    static const double tolerances[2] = {0.0, 1e-3};
    for (int i = 0; i < 2; i++) {
        ndem_mesh *m = NULL;
        ndem_mesh_report r;
        char err[256] = "";
        if (ndem_mesh_build(soup, n, tolerances[i], &m, &r, err, sizeof err) != 0) {
            if (m || err[0] == 0) abort();
            continue;
        }
        check_mesh(m, n, &r);
        ndem_mesh_destroy(m);
    }
}

static void load(const unsigned char *bytes, size_t size)
{
    double *soup = NULL;
    long n = 0;
    char err[256] = "";
    if (ndem_stl_parse(bytes, size, &soup, &n, err, sizeof err) != 0) {
        if (soup || n != 0 || err[0] == 0) abort();
        return;
    }
    if (!soup || n < 1 || n > NDEM_MESH_MAX_TRIANGLES) abort();
    build(soup, n);
    free(soup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load(data, size);
    /* the same bytes as a soup of doubles, as inline vertices will give:
     * denormals, huge and non-finite values STL's float32 cannot hold */
    long n_tri = (long)(size / (9 * sizeof(double)));
    if (n_tri > 0) {
        double *soup = malloc((size_t)n_tri * 9 * sizeof *soup);
        if (!soup) return 0;
        memcpy(soup, data, (size_t)n_tri * 9 * sizeof *soup);
        build(soup, n_tri);
        free(soup);
    }
    unsigned char *bin = NULL;
    size_t n = 0;
    char err[128] = "";
    if (ndem_base64_decode((const char *)data, size, &bin, &n, err, sizeof err) == 0) {
        load(bin, n);
        free(bin);
    } else if (bin || err[0] == 0) {
        abort();
    }
    return 0;
}
