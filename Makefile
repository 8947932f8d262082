# The two commands a newcomer needs: `make run` and `make test`.
SWIFT ?= swift

.PHONY: run test setup setup-test build release unit e2e bench clean

run: setup release
	.build/release/hibi serve

test: setup-test
	scripts/test.sh

setup:
	scripts/setup.sh run

setup-test:
	scripts/setup.sh test

build:
	$(SWIFT) build --product hibi

release:
	$(SWIFT) build -c release --product hibi

unit:
	$(SWIFT) test

# Every Benchmarks/*.sh at its quick size (a few minutes each), then one table of their figures;
# FULL=1 for the full sizes, ROUNDS=N, BENCH="http videos" for some only. See docs/benchmarks.md.
bench: setup release
	BENCH_SIZE=$(if $(filter 1 yes true,$(FULL)),full,quick) HIBI_BENCH_BIN="$(CURDIR)/.build/release/hibi" \
		Benchmarks/lib/run-all.sh

clean:
	rm -rf .build
