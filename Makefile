# ndem build. `make` builds the engine, the job parser and the `ndem` command
# line; `make test` builds everything again with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs every test. Missing Debian packages are
# installed first by scripts/deps.sh (one apt-get update, then install).

CC      ?= gcc
BUILD   ?= build
JOBS    ?= 2

WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
# -ffp-contract=off: results must not depend on fused multiply-adds the
# compiler chose, so that states hash identically everywhere.
BASE    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fopenmp \
           -ffp-contract=off -Icore -Iapi $(WARN)
RELEASE := -O2 -g
SANITIZE:= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=all -DNDEM_CHECKS=1
LIBS    := -lcjson -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

CORE_SRC := $(wildcard core/*.c)
API_SRC  := $(wildcard api/*.c)
LIB_SRC  := $(CORE_SRC) $(API_SRC)
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
HEADERS  := $(wildcard core/*.h api/*.h cli/*.h)

REL := $(BUILD)/release
SAN := $(BUILD)/asan
DEPS_STAMP := $(BUILD)/.deps

.PHONY: all deps test run bench lint format fuzz clean check-tests

all: $(REL)/ndem

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(BUILD)
	bash scripts/deps.sh
	@touch $@

# ---- release tree ----
$(REL)/obj/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $(CFLAGS) -c $< -o $@

$(REL)/libndem.a: $(LIB_SRC:%.c=$(REL)/obj/%.o)
	@ar rcs $@ $^

$(REL)/ndem: $(CLI_SRC:%.c=$(REL)/obj/%.o) $(REL)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(RELEASE) $^ $(LIBS) -o $@

# ---- sanitizer tree (tests) ----
$(SAN)/obj/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $(CFLAGS) -c $< -o $@

$(SAN)/libndem.a: $(LIB_SRC:%.c=$(SAN)/obj/%.o)
	@ar rcs $@ $^

$(SAN)/ndem: $(CLI_SRC:%.c=$(SAN)/obj/%.o) $(SAN)/libndem.a
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) $^ $(LIBS) -o $@

$(SAN)/tests/%: tests/%.c tests/testutil.h tests/scene.h $(SAN)/libndem.a
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(BASE) $(SANITIZE) -Itests $< $(SAN)/libndem.a $(LIBS) $(CHECK_LIBS) -o $@

TEST_BINS := $(TEST_SRC:tests/%.c=$(SAN)/tests/%)

check-tests: $(TEST_BINS) $(SAN)/ndem

# Every Check suite, then the command-line tests, all under the sanitizers.
test: check-tests
	@NDEM_BIN=$(abspath $(SAN)/ndem) NDEM_SHARED=$(abspath ../shared) \
	  bash tests/run_all.sh $(TEST_BINS)

run: all
	@echo "ndemd (the daemon) is not built yet: see README.md. Use: $(REL)/ndem run JOB.json"

bench: $(REL)/ndem
	bash bench/run.sh $(REL)/ndem

lint: | $(DEPS_STAMP)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --std=c11 --inline-suppr -Icore -Iapi core api cli

# ---- fuzzing (not part of `make test`) ----
# libFuzzer on the job parser for FUZZ_SECONDS, seeded with the standard
# scenes and the examples; findings are written to $(BUILD)/fuzz/.
FUZZ         := $(BUILD)/fuzz
FUZZ_SRC     := $(wildcard api/job*.c) api/jsonw.c core/defaults.c
FUZZ_SECONDS ?= 30
FUZZ_SEEDS   := $(wildcard ../shared/bench/*.json examples/*.json)

$(FUZZ)/fuzz_job: tests/fuzz_job.c $(FUZZ_SRC) $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -ffp-contract=off -Icore -Iapi \
	  $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all tests/fuzz_job.c $(FUZZ_SRC) $(LIBS) -o $@

fuzz: $(FUZZ)/fuzz_job
	@rm -rf $(FUZZ)/seed && mkdir -p $(FUZZ)/seed $(FUZZ)/corpus $(FUZZ)/findings
	$(if $(FUZZ_SEEDS),cp $(FUZZ_SEEDS) $(FUZZ)/seed/)
	$(FUZZ)/fuzz_job -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	  -rss_limit_mb=4096 -dict=tests/fuzz_job.dict -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ)/findings/ $(FUZZ)/corpus $(FUZZ)/seed

format:
	clang-format -i core/*.[ch] api/*.[ch] cli/*.c tests/*.[ch]

clean:
	rm -rf $(BUILD)
