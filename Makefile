# SPDX-License-Identifier: Apache-2.0
# Thin wrapper around Meson + ninja. The README's two commands:
#   make demo    install missing Debian packages, build, run the example
#   make check   install missing Debian packages, build, run the whole test suite
# Other targets: deps, build, asan, clang, fuzz, bench, clean.

BUILD        ?= build
FUZZ_SECONDS ?= 60
# the public GPU trace: shared/traces beside this checkout or beside any
# folder above it (a clone in a subfolder finds it too); TRACE=DIR overrides
TRACE        ?= $(shell d=$$PWD; while [ "$$d" != / ]; do \
                  [ -d "$$d/../shared/traces/alibaba-gpu-v2023" ] && \
                  { echo "$$d/../shared/traces/alibaba-gpu-v2023"; break; }; \
                  d=$$(dirname "$$d"); done)
# Debian 12 packages the build and the tests need (checked with dpkg-query).
DEB_PACKAGES := meson ninja-build pkg-config gcc clang libclang-rt-14-dev libcmocka-dev python3 \
                libjansson-dev libuv1-dev libsqlite3-dev libraft-dev libjwt-dev \
                libmicrohttpd-dev chromium libpmix-dev libpmi2-0-dev openmpi-bin libopenmpi-dev mpich libmpich-dev liblua5.4-dev libbpf-dev tmux \
                runc crun busybox-static squashfs-tools libarchive-dev libyaml-dev libssl-dev \
                postgresql libpq-dev libsodium-dev curl libcurl4-openssl-dev python3-cryptography python3-yaml jupyter-notebook \
                openssh-server openssh-client \
                expect

.PHONY: all deps build check asan clang fuzz bench demo clean expect-suite

all: build

deps:
	@./tools/deps.sh $(DEB_PACKAGES)

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

check: build
	@./tools/run-tests.sh $(BUILD)

# The same suite under AddressSanitizer (with LeakSanitizer) and UBSan
# (SPUR_TIMING_TESTS=0: the tests that only wait out whole minutes of a
# time limit run once, in make check).
asan: deps
	@[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
	 LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan.supp \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 SPUR_TIMING_TESTS=0 ./tools/run-tests.sh build-asan

# Build and test with clang (the default build uses the system cc, gcc).
clang: deps
	@[ -f build-clang/build.ninja ] || CC=clang meson setup build-clang
	ninja -C build-clang
	@SPUR_TIMING_TESTS=0 ./tools/run-tests.sh build-clang

# Run every libFuzzer target for FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=5).
fuzz: deps
	@[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false
	ninja -C build-fuzz
	@./tools/fuzz.sh build-fuzz $(FUZZ_SECONDS)

# Benchmarks (bench/README.md): printed figures, baselines in the same run.
bench: build
	$(BUILD)/bench/bench_cycle
	$(BUILD)/bench/bench_replay "$(TRACE)"
	bench/bench_cluster.sh $(BUILD)
	bench/bench_ha.sh $(BUILD)
	bench/bench_step.sh $(BUILD)
	bench/bench_mpi.sh $(BUILD)
	bench/bench_rest.sh $(BUILD)
	bench/bench_container.sh $(BUILD)
	bench/bench_cloud.sh $(BUILD)

demo: build
	@./tools/demo.sh $(BUILD)

# Slurm 22.05's own expect tests (groups test1, 2, 4, 5, 6, 17) against Spur:
# the table of results in docs/expect-suite.md (fetches Debian's source).
expect-suite: build
	@./tools/expect-suite.sh $(BUILD) docs/expect-suite.md

clean:
	rm -rf build build-asan build-clang build-fuzz
