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

clean:
	rm -rf .build
