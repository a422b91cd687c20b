/* load.c - the outside load on ndemd's CPUs (issue 15). A spinning OpenMP
 * barrier waits a whole time slice for a thread that another process took
 * off its core; the thread budget (worker.c) avoids that by leaving the
 * cores that other processes keep busy to them. The load is measured, not
 * guessed: between two readings, the busy time of the CPUs ndemd may run
 * on (/proc/stat) less this process's own CPU time (every thread of it:
 * its jobs, HTTP, the disk writer) is what others took, in cores. So the
 * jobs of ndemd never count as outside load, however many run. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include "load.h"

#include "log.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ndem_load_init(ndem_load *l, const char *stat_path)
{
    memset(l, 0, sizeof *l);
    snprintf(l->stat_path, sizeof l->stat_path, "%s", stat_path ? stat_path : "/proc/stat");
    cpu_set_t set;
    int known = sched_getaffinity(0, sizeof set, &set) == 0;
    for (int i = 0; i < NDEM_LOAD_MAX_CPUS && i < CPU_SETSIZE; i++)
        if (!known || CPU_ISSET(i, &set)) l->on[i] = 1, l->cpus += known;
    if (!known) l->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int ndem_load_parse(const char *text, const unsigned char *on, int max, unsigned long long *busy)
{
    int found = 0;
    *busy = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
        /* "cpuN user nice system idle iowait irq softirq steal ..."; the
         * first line, "cpu " without a number, is every CPU's sum */
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9') continue;
        char *end;
        long n = strtol(line + 3, &end, 10);
        if (n < 0 || n >= max || !on[n]) continue;
        unsigned long long v[8] = {0};
        for (int k = 0; k < 8; k++) v[k] = strtoull(end, &end, 10);
        *busy += v[0] + v[1] + v[2] + v[5] + v[6] + v[7]; /* not idle (3) nor iowait (4) */
        found++;
    }
    return found ? 0 : -1;
}

int ndem_load_round(int taken, double outside)
{
    /* move only when the load is 0.6 core past the current count: one
     * busy process beside two spinning threads of ours gets 2/3 of a core */
    while (outside >= taken + 0.6) taken++;
    while (taken > 0 && outside <= taken - 0.6) taken--;
    return taken;
}

/* The CPUs' busy jiffies now; -1 when /proc/stat cannot be read. */
static int read_busy(const ndem_load *l, unsigned long long *busy)
{
    FILE *f = fopen(l->stat_path, "re");
    if (!f) return -1;
    size_t cap = 1 << 16, len = 0; /* a line per CPU, about 60 bytes each, then more */
    char *text = malloc(cap);
    int rc = -1;
    if (text) {
        size_t got;
        while ((got = fread(text + len, 1, cap - 1 - len, f)) > 0) {
            len += got;
            if (len + 1 < cap) continue;
            char *grown = realloc(text, cap * 2);
            if (!grown) break;
            text = grown;
            cap *= 2;
        }
        text[len] = 0;
        rc = ndem_load_parse(text, l->on, NDEM_LOAD_MAX_CPUS, busy);
        free(text);
    }
    fclose(f);
    return rc;
}

static double own_cpu(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)) return 0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int ndem_load_update(ndem_load *l, double interval)
{
    double now = ndem_mono();
    if (l->have && now - l->wall < interval) return 0;
    unsigned long long busy;
    double own = own_cpu();
    if (read_busy(l, &busy)) { /* no /proc: the static budget */
        int changed = l->taken != 0;
        l->readable = l->have = l->taken = 0;
        l->outside = 0;
        return changed;
    }
    int first = !l->have;
    double wall = now - l->wall, own_s = own - l->own,
           cpu_s = busy > l->busy ? (double)(busy - l->busy) / (double)sysconf(_SC_CLK_TCK) : 0;
    l->readable = l->have = 1;
    l->busy = busy, l->own = own, l->wall = now;
    if (first || wall <= 0) return 0;
    double outside = (cpu_s - own_s) / wall;
    l->outside = outside > 0 ? outside : 0;
    int taken = ndem_load_round(l->taken, l->outside);
    if (taken > l->cpus - 1) taken = l->cpus > 1 ? l->cpus - 1 : 0; /* one core stays ours */
    int changed = taken != l->taken;
    l->taken = taken;
    return changed;
}
