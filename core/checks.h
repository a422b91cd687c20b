/* checks.h (internal) - validation asserts of checked builds. The test
 * build defines NDEM_CHECKS=1 (Makefile): NDEM_CHECK then aborts with a
 * message naming the broken invariant, so a bug stops at the stage that
 * made it rather than as a wrong number later. In release builds
 * NDEM_CHECKS is 0 and every check is compiled out (the condition is still
 * type-checked, so it does not rot). */
#ifndef NDEM_CHECKS_H
#define NDEM_CHECKS_H

#ifndef NDEM_CHECKS
#define NDEM_CHECKS 0
#endif

struct ndem_sim;

/* Prints "ndem check failed: FILE:LINE: COND: message" to stderr and
 * aborts (checked builds only: the engine does no I/O otherwise). */
void ndem_check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#define NDEM_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (NDEM_CHECKS && !(cond)) ndem_check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);       \
    } while (0)

/* Invariants at the boundaries of a step's stages (checks.c), run after the
 * stage they follow by the step (step.c) in checked builds. */
/* bodies: finite positions and velocities, unit quaternions, creation ids
 * a permutation (skipped once a step failed: its state may be non-finite) */
void ndem_check_bodies(const struct ndem_sim *sim);
/* Verlet lists: CSR starts monotone, neighbours j > i ascending, in range */
void ndem_check_lists(const struct ndem_sim *sim);
/* contacts: CSR starts monotone, keys in range and in pair order */
void ndem_check_contacts(const struct ndem_sim *sim);
/* colouring: sets in order over the packets, fills in range, every contact
 * in a lane in use */
void ndem_check_colors(const struct ndem_sim *sim);
/* rows: lanes past a packet's fill are zeros on the zero slot, lanes in
 * use index velocity slots in range, no two rows of one colour share a
 * dynamic body, the zero slot is zeros */
void ndem_check_rows(const struct ndem_sim *sim);
/* warm-start history: CSR starts monotone, each body's keys sorted */
void ndem_check_history(const struct ndem_sim *sim);

#endif
