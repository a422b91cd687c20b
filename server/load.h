/* load.h - the outside load (load.c): how many cores' worth of CPU other
 * processes take on the CPUs ndemd may run on, so that the thread budget
 * leaves them their cores (issue 15). Linux only: without a readable
 * /proc/stat the load is unknown and counts as none. */
#ifndef NDEM_SERVER_LOAD_H
#define NDEM_SERVER_LOAD_H

#include <stddef.h>

#define NDEM_LOAD_MAX_CPUS 4096

typedef struct ndem_load {
    char stat_path[256];                  /* /proc/stat */
    int cpus;                             /* CPUs ndemd may run on (its affinity) */
    unsigned char on[NDEM_LOAD_MAX_CPUS]; /* 1: cpuN is one of them */
    int have;                             /* a first reading was taken */
    unsigned long long busy;              /* their busy jiffies at the last reading */
    double own, wall;                     /* this process's CPU seconds, and ndem_mono(), then */
    double outside;                       /* cores' worth others took, over the last interval */
    int taken;                            /* whole cores left to them (hysteresis) */
    int readable;                         /* the last reading worked */
} ndem_load;

/* Set up for the CPUs this process may run on; stat_path NULL: /proc/stat. */
void ndem_load_init(ndem_load *l, const char *stat_path);

/* Reads the load when at least `interval` wall seconds passed since the
 * last reading (the first call only records a baseline). 1 when
 * l->taken changed, else 0. An unreadable /proc/stat keeps taken at 0. */
int ndem_load_update(ndem_load *l, double interval);

/* The busy jiffies (user, nice, system, irq, softirq, steal) of the
 * CPUs marked in on[0..max) in the text of /proc/stat; -1 when it names
 * none of them. */
int ndem_load_parse(const char *text, const unsigned char *on, int max, unsigned long long *busy);

/* Whole cores taken by an outside load of `outside` cores, given the
 * current count: rounding, with a band of 0.1 core on each side of the
 * halves so that a load near one does not flip the budget every reading. */
int ndem_load_round(int taken, double outside);

#endif
