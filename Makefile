# ndem build. `make` builds the engine, the job parser and the `ndem` command
# line; `make test` builds everything again with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs every test. Missing Debian packages are
# installed first by scripts/deps.sh (one apt-get update, then install).

CC      ?= gcc
BUILD   ?= build
JOBS    ?= 2

WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-psabi
# -Wno-psabi: the solver's vectors pass between static inline functions only,
# never across a library boundary, so the ABI note of non-AVX builds is moot.
# -ffp-contract=off: results must not depend on fused multiply-adds the
# compiler chose, so that states hash identically everywhere. -fno-math-errno:
# sqrt may become one vector instruction (same correctly rounded result).
BASE    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fopenmp \
           -ffp-contract=off -fno-math-errno -Icore -Iapi $(WARN)
RELEASE := -O3 -g
# NATIVE=1 (make bench NATIVE=1): this machine's whole instruction set, in its own
# tree; results stay bit-identical (-ffp-contract=off), see docs/performance.md.
ifeq ($(NATIVE),1)
RELEASE := -O3 -march=native -g
endif
# float-divide-by-zero: not part of -fsanitize=undefined; a zero divisor in
# the engine is a bug (inverse masses of geometry are 0, never 1/0).
SANITIZE:= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-divide-by-zero \
           -fno-sanitize-recover=all -DNDEM_CHECKS=1
# pkg-config's answers are read when a recipe runs (`=`, not `:=`): on a fresh
# machine the packages come from scripts/deps.sh, after make read this file.
# qhull_r: convex hulls of polyhedral particle shapes; ccd: their GJK test
LIBS    = -lcjson $(shell pkg-config --libs ccd 2>/dev/null || echo -lccd) -lqhull_r -lm
# `ndem run --report` (the Slurm executor's compute-node side) speaks HTTP
# through libcurl, loaded with dlopen only then (cli/curl_dl.c): not linked
CLI_LIBS = -ldl
# `ndem run --mpi` (cli/mpi*.c): Open MPI, only ndem-mpi links it; ndem execs
# ndem-mpi for --mpi, so no other run maps its libraries (~1.4 MB resident)
MPI_LIBS = $(shell pkg-config --libs ompi-c 2>/dev/null || echo -lmpi)
MPI_CFLAGS = $(shell pkg-config --cflags ompi-c 2>/dev/null)
# ndemd --slurm-rest speaks to slurmrestd over HTTP (libcurl);
# libcrypto (OpenSSL): SHA-256 of bearer tokens, compared with CRYPTO_memcmp
SERVER_LIBS := -lmicrohttpd -lwebsockets -lsqlite3 -lcrypto -lz -lpthread -lcurl
# daemon tests talk to ndemd over HTTP (libcurl) and WebSocket (libwebsockets)
TEST_LIBS := -lcurl -lwebsockets -lpthread
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

CORE_SRC := $(wildcard core/*.c)
API_SRC  := $(wildcard api/*.c)
LIB_SRC  := $(CORE_SRC) $(API_SRC)
CLI_SRC  := $(wildcard cli/*.c)
# ndem: the command line without MPI; ndem-mpi: cli/ndem.c again with
# -DNDEM_MPI (obj/cli/ndem-mpi.o) and the MPI modules
CLI_MPI_SRC := $(wildcard cli/mpi*.c)
CLI_BASE_SRC := $(filter-out $(CLI_MPI_SRC),$(CLI_SRC))
CLI_MPI_OBJ = $(filter-out %/cli/ndem.o,$(CLI_SRC:%.c=$(1)/obj/%.o)) $(1)/obj/cli/ndem-mpi.o
SERVER_SRC := $(wildcard server/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
HEADERS  := $(wildcard core/*.h api/*.h cli/*.h server/*.h)

REL := $(BUILD)/release$(if $(filter 1,$(NATIVE)),-native)
SAN := $(BUILD)/asan
DEPS_STAMP := $(BUILD)/.deps

.PHONY: all deps test run bench bench-large bench-shapes bench-peers lint format fuzz clean check-tests ci-extra test-slurm

all: $(REL)/ndem $(REL)/ndem-mpi $(REL)/ndemd

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(BUILD)
	bash scripts/deps.sh
	@touch $@

# ---- release tree ----
$(REL)/obj/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $(if $(filter cli/%,$<),$(MPI_CFLAGS)) $(CFLAGS) -c $< -o $@

$(REL)/libndem.a: $(LIB_SRC:%.c=$(REL)/obj/%.o)
	@ar rcs $@ $^

$(REL)/obj/cli/ndem-mpi.o: cli/ndem.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) -DNDEM_MPI $(MPI_CFLAGS) $(CFLAGS) -c $< -o $@

$(REL)/ndem: $(CLI_BASE_SRC:%.c=$(REL)/obj/%.o) $(REL)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $^ $(LIBS) $(CLI_LIBS) -o $@

$(REL)/ndem-mpi: $(call CLI_MPI_OBJ,$(REL)) $(REL)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $^ $(LIBS) $(CLI_LIBS) $(MPI_LIBS) -o $@

# ---- ndemd: the SQL migrations and the OpenAPI document are compiled in ----
EMBED_SRC := $(sort $(wildcard migrations/*.sql)) server/openapi.json
EMBED_C   := $(BUILD)/gen/embedded.c

$(EMBED_C): scripts/embed.sh $(EMBED_SRC)
	@mkdir -p $(dir $@)
	@bash scripts/embed.sh $@ $(EMBED_SRC)

$(REL)/ndemd: $(SERVER_SRC:%.c=$(REL)/obj/%.o) $(REL)/obj/$(EMBED_C:.c=.o) $(REL)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $^ $(LIBS) $(SERVER_LIBS) -o $@

$(SAN)/ndemd: $(SERVER_SRC:%.c=$(SAN)/obj/%.o) $(SAN)/obj/$(EMBED_C:.c=.o) $(SAN)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $^ $(LIBS) $(SERVER_LIBS) -o $@

# ---- sanitizer tree (tests) ----
$(SAN)/obj/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $(if $(filter cli/%,$<),$(MPI_CFLAGS)) $(CFLAGS) -c $< -o $@

$(SAN)/libndem.a: $(LIB_SRC:%.c=$(SAN)/obj/%.o)
	@ar rcs $@ $^

$(SAN)/obj/cli/ndem-mpi.o: cli/ndem.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) -DNDEM_MPI $(MPI_CFLAGS) $(CFLAGS) -c $< -o $@

$(SAN)/ndem: $(CLI_BASE_SRC:%.c=$(SAN)/obj/%.o) $(SAN)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $^ $(LIBS) $(CLI_LIBS) -o $@

$(SAN)/ndem-mpi: $(call CLI_MPI_OBJ,$(SAN)) $(SAN)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $^ $(LIBS) $(CLI_LIBS) $(MPI_LIBS) -o $@

$(SAN)/tests/%: tests/%.c $(wildcard tests/*.h) $(SAN)/libndem.a
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) -Itests -Iserver $< $(TEST_OBJS_$*) $(SAN)/libndem.a $(LIBS) $(CHECK_LIBS) $(TEST_LIBS) $(if $(TEST_OBJS_$*),$(SERVER_LIBS)) -o $@

# Suites that also test server modules directly link their objects (and
# the database's: the migrations are compiled in).
TEST_OBJS_test_meshes := $(addprefix $(SAN)/obj/server/,mesh_files.o meshes.o db.o db_sweeps.o log.o) \
                         $(SAN)/obj/$(EMBED_C:.c=.o)
$(SAN)/tests/test_meshes: $(TEST_OBJS_test_meshes)

TEST_OBJS_test_cores := $(addprefix $(SAN)/obj/server/,load.o log.o)
$(SAN)/tests/test_cores: $(TEST_OBJS_test_cores)

TEST_BINS := $(TEST_SRC:tests/%.c=$(SAN)/tests/%)

# The physics and determinism suites again in the release build (-O3, no
# sanitizers): its results are claimed bit-identical to the sanitizer build's
# (the anchor hashes of test_determinism hold in both).
$(REL)/tests/%: tests/%.c $(wildcard tests/*.h) $(REL)/libndem.a
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) -Itests $< $(REL)/libndem.a $(LIBS) $(CHECK_LIBS) $(TEST_LIBS) -o $@

REL_TEST_BINS := $(REL)/tests/test_physics $(REL)/tests/test_dem $(REL)/tests/test_dem_laws \
                 $(REL)/tests/test_determinism \
                 $(REL)/tests/test_shape_ndem

check-tests: $(TEST_BINS) $(REL_TEST_BINS) $(SAN)/ndem $(SAN)/ndem-mpi $(SAN)/ndemd $(REL)/ndem \
             $(REL)/ndem-mpi

# Every Check suite under the sanitizers, the physics and determinism suites
# in the release build, then the command-line tests; each bounded in time by
# tests/run_all.sh.
test: check-tests web
	@NDEM_BIN=$(abspath $(SAN)/ndem) NDEMD_BIN=$(abspath $(SAN)/ndemd) \
	  NDEM_MPI_BIN=$(abspath $(REL)/ndem) bash tests/run_all.sh $(TEST_BINS) $(REL_TEST_BINS)

# What CI runs besides `make test`: the release programs (`make all`), the lint, a bounded fuzz pass
# (CI_FUZZ_SECONDS per target; a finding fails it) and test-slurm. A fixed
# seed makes CI's inputs the same on every run; `make fuzz` alone explores
# new ones.
CI_FUZZ_SECONDS ?= 30
FUZZ_FLAGS   ?=
# ndemd --executor slurm against a real single-node Slurm started on loopback
# (tests/slurm/start.sh; munge and Slurm from scripts/deps.sh slurm).
test-slurm: $(SAN)/ndem $(SAN)/ndemd
	bash scripts/deps.sh slurm
	NDEM_BIN=$(abspath $(SAN)/ndem) NDEMD_BIN=$(abspath $(SAN)/ndemd) bash tests/slurm/test.sh

ci-extra:
	$(MAKE) all
	$(MAKE) lint
	$(MAKE) fuzz FUZZ_SECONDS=$(CI_FUZZ_SECONDS) FUZZ_FLAGS=-seed=1
	$(MAKE) test-slurm

# The daemon: http://$(LISTEN), data in $(DATA); override either on the
# command line, e.g. `make run LISTEN=127.0.0.1:9090 DATA=/tmp/ndem`.
LISTEN ?= 127.0.0.1:8080
DATA   ?= ./var
run: all web
	$(REL)/ndemd --listen $(LISTEN) --data $(DATA)

# ---- web client: ndemd serves web/ itself; npm ci installs three.js (and
# playwright-core for tests/cli_web.sh) from web/package-lock.json, and
# web/build.mjs copies three.js into web/vendor/ and the examples into
# web/examples/ (both git-ignored) ----
.PHONY: web
WEB_NPM := web/node_modules/.package-lock.json
web: web/vendor/versions.json
$(WEB_NPM): web/package.json web/package-lock.json | $(DEPS_STAMP)
	cd web && npm ci --no-audit --no-fund --loglevel=error
web/vendor/versions.json: $(WEB_NPM) web/build.mjs $(wildcard examples/*.json)
	node web/build.mjs

bench: $(REL)/ndem
	bash bench/run.sh $(REL)/ndem

# The scaling curve: bed-100k scaled to 10^3, 10^4, 10^5 and 10^6 particles
# (generated into build/bench-large by bench/make_scenes.py --bed), 0.5 s each,
# measured over the last 0.1 s (bench/large.sh, docs/performance.md). The 10^6
# bed needs about 1 GB; the default run takes a few minutes on 2 quiet cores.
# LARGE_ARGS: more options (--threads N, --duration S, --counts "...", --keep).
# Not part of `make test`.
bench-large: $(REL)/ndem
	bash bench/large.sh $(LARGE_ARGS) $(REL)/ndem

# Shaped particles' cost: packed beds of 10^4 and 10^5 cubes beside the same
# beds of spheres, NDEM and smooth DEM, 2 threads (bench/shapes.sh,
# docs/performance.md); SHAPES_ARGS: more options (--settle, --threads N).
bench-shapes: $(REL)/ndem
	bash bench/shapes.sh $(SHAPES_ARGS) $(REL)/ndem

# LIGGGHTS beside ndem on the same bed (bench/peers.sh, docs/performance.md);
# BENCH_PEERS_LARGE=1: bed-100k; PEERS_ARGS: more options (--duration S, ...).
# A benchmark, not a test: installs Debian's liggghts (scripts/deps.sh peers).
bench-peers: $(REL)/ndem
	bash scripts/deps.sh peers
	bash bench/peers.sh $(if $(filter 1,$(BENCH_PEERS_LARGE)),--large) $(PEERS_ARGS) $(REL)/ndem

# ---- validation study (docs/validation.md; not part of `make test`) ----
# Wang et al.'s convergence study: tools/validate/validate.py runs the scenes
# it generates with the release `ndem` and `ndem-probe`, writes
# $(BUILD)/validate/*.csv, plots docs/images/validation-*.png (gnuplot) and
# regenerates docs/validation.md. QUICK=1: a coarse subset (minutes); MEDIUM=1:
# the same with the pile at 1000 spheres; ONLY=pile,drum: those studies' sections
# only, the others kept from docs/data/validation/.
.PHONY: validate
$(REL)/ndem-probe: tools/validate/probe.c $(REL)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $< $(REL)/libndem.a $(LIBS) -o $@
validate: $(REL)/ndem $(REL)/ndem-probe
	bash scripts/deps.sh validate
	nice python3 tools/validate/validate.py --ndem $(REL)/ndem --probe $(REL)/ndem-probe --jobs $(JOBS) \
	  --work $(BUILD)/validate$(if $(filter 1,$(QUICK)), --quick)$(if $(filter 1,$(MEDIUM)), --pass medium)$(if $(ONLY), --only $(ONLY))

# the C sources `make format` rewrites and `make lint` checks (Debian's clang-format)
FORMAT_SRC := $(wildcard core/*.[ch] api/*.[ch] cli/*.[ch] server/*.[ch] tests/*.[ch])
lint: | $(DEPS_STAMP)
	bash scripts/deps.sh lint
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --std=c11 --inline-suppr -Icore -Iapi core api cli server
	clang-format --dry-run --Werror $(FORMAT_SRC)

# ---- fuzzing (not part of `make test`; `make ci-extra` runs it) ----
# libFuzzer for FUZZ_SECONDS per target; findings are written to
# $(BUILD)/fuzz/findings/. fuzz_job: the job parser alone. fuzz_step: parse,
# then build and step every valid document a few times (all of core/ and
# api/, one OpenMP thread); both seeded with the repository's scenes
# (examples/ and bench/). fuzz_stl: STL bytes (and base64 of them) parsed and
# built into a mesh, and the bytes as doubles built directly; seeded with
# tests/stl/ (cubes as STL and as raw doubles) and the base64 of its binary
# cube; with float-divide-by-zero, as in the test build (a zero divisor in
# mesh.c is a bug).
FUZZ         := $(BUILD)/fuzz
FUZZ_STL_SRC := api/stl.c api/base64.c core/mesh.c core/mass_props_shape.c
FUZZ_SECONDS ?= 30
FUZZ_SEEDS   := $(wildcard examples/*.json bench/*.json)
FUZZ_CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -ffp-contract=off -Icore -Iapi \
                $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all
# target:seed folder:dictionary, run in this order
FUZZ_TARGETS := fuzz_job:seed:fuzz_job fuzz_step:seed:fuzz_job fuzz_stl:seed-stl:fuzz_stl \
                fuzz_frame:seed-ndf:fuzz_frame
FUZZ_FRAME_SRC := api/frame_bin.c core/crc32c.c

$(FUZZ)/fuzz_job: tests/fuzz_job.c $(LIB_SRC) $(HEADERS) | $(DEPS_STAMP)
	bash scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fopenmp tests/fuzz_job.c $(LIB_SRC) $(LIBS) -o $@

$(FUZZ)/fuzz_step: tests/fuzz_step.c $(LIB_SRC) $(HEADERS) | $(DEPS_STAMP)
	bash scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fopenmp tests/fuzz_step.c $(LIB_SRC) $(LIBS) -o $@

$(FUZZ)/fuzz_stl: tests/fuzz_stl.c $(FUZZ_STL_SRC) $(HEADERS) | $(DEPS_STAMP)
	bash scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=float-divide-by-zero tests/fuzz_stl.c $(FUZZ_STL_SRC) -lm -o $@

$(FUZZ)/fuzz_frame: tests/fuzz_frame.c $(FUZZ_FRAME_SRC) $(HEADERS) | $(DEPS_STAMP)
	bash scripts/deps.sh fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) tests/fuzz_frame.c $(FUZZ_FRAME_SRC) -lm -o $@

fuzz: $(FUZZ)/fuzz_job $(FUZZ)/fuzz_step $(FUZZ)/fuzz_stl $(FUZZ)/fuzz_frame
	@rm -rf $(FUZZ)/seed $(FUZZ)/seed-stl $(FUZZ)/seed-ndf && \
	  mkdir -p $(FUZZ)/seed $(FUZZ)/seed-stl $(FUZZ)/seed-ndf $(FUZZ)/findings
	@cp tests/ndf/*.ndf $(FUZZ)/seed-ndf/
	@for f in $(FUZZ_SEEDS); do \
	  cp "$$f" "$(FUZZ)/seed/$$(basename "$$(dirname "$$f")")-$$(basename "$$f")"; done
	@cp tests/stl/* $(FUZZ)/seed-stl/ && \
	  base64 -w0 tests/stl/cube_binary.stl > $(FUZZ)/seed-stl/cube_binary.b64
	@for spec in $(FUZZ_TARGETS); do t=$${spec%%:*}; rest=$${spec#*:}; \
	  seed=$${rest%%:*}; dict=$${rest#*:}; mkdir -p $(FUZZ)/corpus-$$t; \
	  echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  OMP_NUM_THREADS=1 $(FUZZ)/$$t -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) -max_len=16384 -timeout=10 \
	    -rss_limit_mb=4096 -dict=tests/$$dict.dict -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ)/findings/$$t- $(FUZZ)/corpus-$$t $(FUZZ)/$$seed || exit 1; done

format:
	bash scripts/deps.sh lint
	clang-format -i $(FORMAT_SRC)

clean:
	rm -rf $(BUILD)
