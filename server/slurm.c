/* slurm.c - Slurm's commands (slurm.h). Each runs as a child process with
 * its output captured; nothing goes through a shell on this side (the
 * batch job's one command line is built with every value quoted). */
#define _GNU_SOURCE /* pipe2 */
#include "slurm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CMD_TIMEOUT 60 /* seconds: sbatch and friends retry slurmctld themselves */

/* Runs bin_dir/prog (or prog from PATH) with argv and envp; its stdout and
 * stderr into out. The exit status (0 = success), or -1 with out set. */
static int run_cmd(const ndem_config *c, char *const argv[], char *const envp[], char *out,
                   size_t out_len)
{
    char path[1200];
    if (c->slurm_bin[0]) snprintf(path, sizeof path, "%s/%s", c->slurm_bin, argv[0]);
    else snprintf(path, sizeof path, "%s", argv[0]);
    int fds[2];
    out[0] = 0;
    if (pipe2(fds, O_CLOEXEC)) {
        snprintf(out, out_len, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    /* ndemd blocks SIGINT and SIGTERM in every thread: not its children */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawnp(&pid, path, &fa, &attr, argv, envp ? envp : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        snprintf(out, out_len, "cannot run %s: %s", path, strerror(rc));
        return -1;
    }
    size_t n = 0;
    time_t until = time(NULL) + CMD_TIMEOUT;
    for (;;) {
        struct pollfd p = {fds[0], POLLIN, 0};
        int left = (int)(until - time(NULL));
        if (left <= 0 || poll(&p, 1, left * 1000) == 0) {
            kill(pid, SIGKILL);
            snprintf(out, out_len, "%s did not answer within %d s", argv[0], CMD_TIMEOUT);
            break;
        }
        char buf[512];
        ssize_t got = read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size_t k = (size_t)got < out_len - 1 - n ? (size_t)got : out_len - 1 - n;
        memcpy(out + n, buf, k);
        n += k;
        out[n] = 0;
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ')) out[--n] = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Appends 'text' to buf as one shell word. */
static void quote(char *buf, size_t len, const char *text)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, " '");
    for (const char *p = text; *p; p++) {
        n = strlen(buf);
        if (*p == '\'') snprintf(buf + n, len - n, "'\\''");
        else snprintf(buf + n, len - n, "%c", *p);
    }
    n = strlen(buf);
    snprintf(buf + n, len - n, "'");
}

static const ndem_slurm_backend *backend(const ndem_config *c);

/* Appends text to the growing buffer *buf; -1 when memory ran out. */
static int append(char **buf, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 1 > *cap) {
        size_t want = (*len + n + 1) * 2;
        char *grown = realloc(*buf, want);
        if (!grown) return -1;
        *buf = grown;
        *cap = want;
    }
    memcpy(*buf + *len, text, n + 1);
    *len += n;
    return 0;
}

int ndem_slurm_private_var(const char *var)
{
    return !strncmp(var, "NDEM_REPORT_SECRET=", 19) || !strncmp(var, "NDEM_ARRAY_", 11) ||
           !strncmp(var, "SLURM_JWT=", 10);
}

void ndem_slurm_output(const ndem_config *c, int array, char *buf, size_t len)
{
    if (c->slurm_log[0]) snprintf(buf, len, "%s/ndem-%s.out", c->slurm_log, array ? "%A_%a" : "%j");
    else snprintf(buf, len, "/dev/null");
}

/* sbatch with the options every job gets; --export=ALL passes ndemd's
 * environment (less its private variables) and s->env on to the job. */
static int cmd_submit(const ndem_config *c, const ndem_slurm_submission *s, char *slurm_id,
                      size_t slurm_id_len, char *err, size_t err_len)
{
    char name[80], output[1200], partition[160], timelimit[96], cpus[48];
    snprintf(name, sizeof name, "--job-name=%s", s->name);
    snprintf(output, sizeof output, "--output=");
    ndem_slurm_output(c, s->array != NULL, output + 9, sizeof output - 9);
    char *argv[16], *array_arg = NULL, *wrap_arg = NULL;
    int a = 0;
    argv[a++] = "sbatch";
    argv[a++] = "--parsable";
    argv[a++] = name;
    argv[a++] = output;
    argv[a++] = "--export=ALL";
    argv[a++] = "--requeue"; /* a node failure puts it back in Slurm's queue */
    if (c->slurm_partition[0]) {
        snprintf(partition, sizeof partition, "--partition=%s", c->slurm_partition);
        argv[a++] = partition;
    }
    if (c->slurm_time[0]) {
        snprintf(timelimit, sizeof timelimit, "--time=%s", c->slurm_time);
        argv[a++] = timelimit;
    }
    if (c->threads > 0) {
        snprintf(cpus, sizeof cpus, "--cpus-per-task=%ld", c->threads);
        argv[a++] = cpus;
    }
    size_t n = 0, extra = 0, len = 0, cap = 0;
    if (s->array &&
        (append(&array_arg, &len, &cap, "--array=") || append(&array_arg, &len, &cap, s->array)))
        goto oom;
    if (s->array) argv[a++] = array_arg;
    len = cap = 0;
    if (append(&wrap_arg, &len, &cap, "--wrap=") || append(&wrap_arg, &len, &cap, s->command))
        goto oom;
    argv[a++] = wrap_arg;
    argv[a] = NULL;
    while (environ[n]) n++;
    while (s->env[extra]) extra++;
    char **envp = calloc(n + extra + 1, sizeof *envp);
    if (!envp) goto oom;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!ndem_slurm_private_var(environ[i])) envp[k++] = environ[i];
    for (size_t i = 0; i < extra; i++) envp[k++] = s->env[i];
    envp[k] = NULL;
    char out[1024];
    int rc = run_cmd(c, argv, envp, out, sizeof out);
    free(envp);
    free(array_arg);
    free(wrap_arg);
    /* --parsable: "JOBID" or "JOBID;CLUSTER" */
    char *end;
    long jid = strtol(out, &end, 10);
    if (rc || jid <= 0 || (*end && *end != ';')) {
        snprintf(err, err_len, "sbatch failed (%d): %s", rc, out[0] ? out : "no output");
        return -1;
    }
    snprintf(slurm_id, slurm_id_len, "%ld", jid);
    return 0;
oom:
    free(array_arg);
    free(wrap_arg);
    snprintf(err, err_len, "out of memory");
    return -1;
}

/* The end of the batch command line: --threads, when set. */
static void threads_arg(const ndem_config *c, char *buf, size_t len)
{
    if (c->threads > 0)
        snprintf(buf + strlen(buf), len - strlen(buf), " --threads %ld", c->threads);
}

int ndem_slurm_submit(const ndem_config *c, const char *id, const char *url, const char *secret,
                      char *slurm_id, size_t slurm_id_len, char *err, size_t err_len)
{
    char name[64], wrap[2600], secret_var[128];
    snprintf(name, sizeof name, "ndem-%s", id);
    snprintf(wrap, sizeof wrap, "exec");
    quote(wrap, sizeof wrap, c->slurm_ndem);
    snprintf(wrap + strlen(wrap), sizeof wrap - strlen(wrap), " run --quiet --report");
    quote(wrap, sizeof wrap, url);
    threads_arg(c, wrap, sizeof wrap);
    /* the job's secret reaches it in its environment, never in argv */
    snprintf(secret_var, sizeof secret_var, "NDEM_REPORT_SECRET=%s", secret);
    char *env[] = {secret_var, NULL};
    ndem_slurm_submission sub = {name, NULL, wrap, env};
    return backend(c)->submit(c, &sub, slurm_id, slurm_id_len, err, err_len);
}

/* "0-2,5,7-8%W": the task indices (ascending) as sbatch --array takes them. */
static char *array_spec(const ndem_slurm_task *tasks, int n, long throttle)
{
    char *spec = NULL, part[64];
    size_t len = 0, cap = 0;
    for (int i = 0; i < n;) {
        int k = i;
        while (k + 1 < n && tasks[k + 1].index == tasks[k].index + 1) k++;
        if (k > i)
            snprintf(part, sizeof part, "%s%ld-%ld", i ? "," : "", tasks[i].index, tasks[k].index);
        else snprintf(part, sizeof part, "%s%ld", i ? "," : "", tasks[i].index);
        if (append(&spec, &len, &cap, part)) goto oom;
        i = k + 1;
    }
    snprintf(part, sizeof part, "%%%ld", throttle);
    if (throttle > 0 && append(&spec, &len, &cap, part)) goto oom;
    return spec;
oom:
    free(spec);
    return NULL;
}

int ndem_slurm_submit_array(const ndem_config *c, const char *name, const char *report_base,
                            const ndem_slurm_task *tasks, int n, long throttle, char *slurm_id,
                            size_t slurm_id_len, char *err, size_t err_len)
{
    /* Task i finds its job and secret in NDEM_ARRAY_JOB_i and
     * NDEM_ARRAY_SECRET_i, then unsets every task's before ndem starts, so
     * that the program holds only its own secret. */
    char wrap[3000];
    snprintf(wrap, sizeof wrap,
             "t=$SLURM_ARRAY_TASK_ID; id=$(printenv NDEM_ARRAY_JOB_$t) || exit 3; "
             "NDEM_REPORT_SECRET=$(printenv NDEM_ARRAY_SECRET_$t) || exit 3; "
             "export NDEM_REPORT_SECRET; "
             "for v in $(env | grep -o '^NDEM_ARRAY_[A-Z]*_[0-9]*='); do unset \"${v%%=}\"; done; "
             "exec");
    quote(wrap, sizeof wrap, c->slurm_ndem);
    snprintf(wrap + strlen(wrap), sizeof wrap - strlen(wrap), " run --quiet --report");
    quote(wrap, sizeof wrap, report_base);
    snprintf(wrap + strlen(wrap), sizeof wrap - strlen(wrap), "\"/internal/v1/jobs/$id/report\"");
    threads_arg(c, wrap, sizeof wrap);
    char **env = calloc(2 * (size_t)n + 1, sizeof *env);
    char *spec = array_spec(tasks, n, throttle);
    int rc = -1;
    if (!env || !spec) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        char var[160];
        snprintf(var, sizeof var, "NDEM_ARRAY_JOB_%ld=%s", tasks[i].index, tasks[i].job);
        env[2 * i] = strdup(var);
        snprintf(var, sizeof var, "NDEM_ARRAY_SECRET_%ld=%s", tasks[i].index, tasks[i].secret);
        env[2 * i + 1] = strdup(var);
        if (!env[2 * i] || !env[2 * i + 1]) {
            snprintf(err, err_len, "out of memory");
            goto out;
        }
    }
    ndem_slurm_submission sub = {name, spec, wrap, env};
    rc = backend(c)->submit(c, &sub, slurm_id, slurm_id_len, err, err_len);
out:
    for (int i = 0; env && i < 2 * n; i++) free(env[i]);
    free(env);
    free(spec);
    return rc;
}

static const struct {
    const char *state;
    ndem_slurm_class cls;
} classes[] = {
    {"PENDING", NDEM_SLURM_ACTIVE},
    {"CONFIGURING", NDEM_SLURM_ACTIVE},
    {"RUNNING", NDEM_SLURM_ACTIVE},
    {"COMPLETING", NDEM_SLURM_ACTIVE},
    {"REQUEUED", NDEM_SLURM_ACTIVE},
    {"REQUEUE_FED", NDEM_SLURM_ACTIVE},
    {"REQUEUE_HOLD", NDEM_SLURM_ACTIVE},
    {"RESIZING", NDEM_SLURM_ACTIVE},
    {"SUSPENDED", NDEM_SLURM_ACTIVE},
    {"STOPPED", NDEM_SLURM_ACTIVE},
    {"SIGNALING", NDEM_SLURM_ACTIVE},
    {"STAGE_OUT", NDEM_SLURM_ACTIVE},
    {"COMPLETED", NDEM_SLURM_ENDED},
    {"CANCELLED", NDEM_SLURM_CANCELLED},
    {"FAILED", NDEM_SLURM_INTERRUPTED},
    {"NODE_FAIL", NDEM_SLURM_INTERRUPTED},
    {"TIMEOUT", NDEM_SLURM_INTERRUPTED},
    {"PREEMPTED", NDEM_SLURM_INTERRUPTED},
    {"BOOT_FAIL", NDEM_SLURM_INTERRUPTED},
    {"DEADLINE", NDEM_SLURM_INTERRUPTED},
    {"OUT_OF_MEMORY", NDEM_SLURM_INTERRUPTED},
};

ndem_slurm_class ndem_slurm_classify(const char *state)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (!strcmp(classes[i].state, state)) return classes[i].cls;
    return NDEM_SLURM_ACTIVE;
}

/* The value of "KEY=value" in scontrol's one-line output, up to a space. */
static void field(const char *text, const char *key, char *out, size_t len)
{
    out[0] = 0;
    size_t k = strlen(key);
    for (const char *p = text; (p = strstr(p, key)); p += k) {
        if ((p != text && p[-1] != ' ') || p[k] != '=') continue;
        size_t n = strcspn(p + k + 1, " \n");
        snprintf(out, len, "%.*s", (int)n, p + k + 1);
        return;
    }
}

static int cmd_query(const ndem_config *c, const char *slurm_id, ndem_slurm_state *st, char *err,
                     size_t err_len)
{
    char *argv[] = {"scontrol", "--oneliner", "show", "job", (char *)slurm_id, NULL};
    char out[4096];
    memset(st, 0, sizeof *st);
    int rc = run_cmd(c, argv, NULL, out, sizeof out);
    if (rc && strstr(out, "Invalid job id")) {
        snprintf(st->state, sizeof st->state, "GONE");
        st->cls = NDEM_SLURM_GONE;
        return 0;
    }
    if (rc) {
        snprintf(err, err_len, "scontrol failed (%d): %s", rc, out[0] ? out : "no output");
        return -1;
    }
    field(out, "JobState", st->state, sizeof st->state);
    field(out, "Reason", st->reason, sizeof st->reason);
    field(out, "ExitCode", st->exit_code, sizeof st->exit_code);
    st->cls = ndem_slurm_classify(st->state);
    return 0;
}

static int cmd_cancel(const ndem_config *c, const char *slurm_id, char *err, size_t err_len)
{
    char *argv[] = {"scancel", (char *)slurm_id, NULL};
    char out[1024];
    int rc = run_cmd(c, argv, NULL, out, sizeof out);
    if (rc) snprintf(err, err_len, "scancel failed (%d): %s", rc, out[0] ? out : "no output");
    return rc ? -1 : 0;
}

static const ndem_slurm_backend commands = {"commands", cmd_submit, cmd_query, cmd_cancel};

static const ndem_slurm_backend *backend(const ndem_config *c)
{
    return c->slurm_rest[0] ? &ndem_slurm_rest_backend : &commands;
}

int ndem_slurm_query(const ndem_config *c, const char *slurm_id, ndem_slurm_state *st, char *err,
                     size_t err_len)
{
    memset(st, 0, sizeof *st);
    int rc = backend(c)->query(c, slurm_id, st, err, err_len);
    if (!rc && st->cls != NDEM_SLURM_GONE) st->cls = ndem_slurm_classify(st->state);
    return rc;
}

int ndem_slurm_cancel(const ndem_config *c, const char *slurm_id, char *err, size_t err_len)
{
    return backend(c)->cancel(c, slurm_id, err, err_len);
}
