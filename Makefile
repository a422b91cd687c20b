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
TEST_SRC := $(wildcard tests/test_*.c)
HEADERS  := $(wildcard core/*.h api/*.h)

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
	$(CC) $(BASE) $(RELEASE) $(CFLAGS) -c $< -o $@

$(REL)/libndem.a: $(LIB_SRC:%.c=$(REL)/obj/%.o)
	ar rcs $@ $^

$(REL)/ndem: $(REL)/obj/cli/ndem.o $(REL)/libndem.a
	$(CC) $(BASE) $(RELEASE) $^ $(LIBS) -o $@

# ---- sanitizer tree (tests) ----
$(SAN)/obj/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SANITIZE) $(CFLAGS) -c $< -o $@

$(SAN)/libndem.a: $(LIB_SRC:%.c=$(SAN)/obj/%.o)
	ar rcs $@ $^

$(SAN)/ndem: $(SAN)/obj/cli/ndem.o $(SAN)/libndem.a
	$(CC) $(BASE) $(SANITIZE) $^ $(LIBS) -o $@

$(SAN)/tests/%: tests/%.c tests/testutil.h $(SAN)/libndem.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SANITIZE) -Itests $< $(SAN)/libndem.a $(LIBS) $(CHECK_LIBS) -o $@

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

format:
	clang-format -i core/*.[ch] api/*.[ch] cli/*.c tests/*.[ch]

clean:
	rm -rf $(BUILD)
